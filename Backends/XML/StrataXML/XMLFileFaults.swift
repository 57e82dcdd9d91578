import Foundation
import StrataCore

/// The fault-injection seam of the XML store's file output (for the reliability tests,
/// `Tests/StrataReliabilityTests`): every system call through which a save reaches the disk
/// (`write`, `fsync` of the new file, `rename`, `fsync` of the directory) asks this seam first,
/// and an armed fault makes that call fail with the errno a real disk would give (`ENOSPC`,
/// `EIO`, ...), after writing part of the data for a short write.
///
/// Faults are armed per directory, so tests running in parallel on other stores are not
/// affected. When nothing is armed the cost is one lock and one dictionary check per call (a
/// save makes a handful: writes go out in 1 MiB chunks).
enum XMLFileFaults {
    /// The system call a fault replaces.
    enum Operation: Sendable, Hashable {
        /// A `write` of the new file's bytes.
        case write
        /// The `fsync` of the new (temporary) file.
        case syncFile
        /// The `rename` of the temporary file over the store.
        case rename
        /// The `fsync` of the directory after the rename.
        case syncDirectory
    }

    /// A fault: the `countdown`-th call (0: the next one) of `operation` in the directory fails
    /// with `errorNumber`; a short write first writes half of its bytes.
    struct Plan: Sendable, Hashable {
        var operation: Operation
        var countdown: Int
        var errorNumber: Int32
        var short: Bool = false
    }

    /// Armed plans by directory, and how many faults were injected in each.
    private static let plans = Locked<[String: Plan]>([:])
    private static let injectedCounts = Locked<[String: Int]>([:])

    /// Arms `plan` for files in `directory` (replacing any plan armed there).
    static func arm(_ plan: Plan, directory: String) {
        plans.withLock { $0[directory] = plan }
    }

    /// Disarms the directory and returns how many faults were injected there since the last call.
    @discardableResult
    static func disarm(directory: String) -> Int {
        plans.withLock { $0[directory] = nil }
        return injectedCounts.withLock { $0.removeValue(forKey: directory) ?? 0 }
    }

    /// The fault to inject for this call of `operation` on `path`, if one is due (it is then
    /// disarmed, so one plan injects one fault).
    static func due(_ operation: Operation, path: String) -> Plan? {
        let directory = (path as NSString).deletingLastPathComponent
        let plan: Plan? = plans.withLock { plans in
            guard var plan = plans[directory], plan.operation == operation else { return nil }
            if plan.countdown > 0 {
                plan.countdown -= 1
                plans[directory] = plan
                return nil
            }
            plans[directory] = nil
            return plan
        }
        if plan != nil { injectedCounts.withLock { $0[directory, default: 0] += 1 } }
        return plan
    }
}
