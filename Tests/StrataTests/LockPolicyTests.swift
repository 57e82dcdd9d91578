import Foundation
import Testing

/// Strata shares mutable state through `Locked` (a pthread mutex), never through
/// `Synchronization.Mutex`: on Linux its contended path is a priority-inheritance futex inside the
/// uninstrumented standard library, so ThreadSanitizer sees no ordering between two holders and
/// reports every contended section as a race (CI's ThreadSanitizer run failed on exactly that in
/// `XMLStore.obtainPermanentIDs`). This test keeps the rule true for every file in the package.
@Suite struct LockPolicyTests {
    @Test func noSourceFileUsesSynchronizationMutex() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let thisFile = URL(fileURLWithPath: #filePath).standardizedFileURL.path
        var offenders: [String] = []
        var scanned = 0
        for folder in ["Sources", "Backends", "Migrations", "Tests", "Examples"] {
            let base = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else {
                continue
            }
            for case let file as URL in walker
            where file.pathExtension == "swift" && file.standardizedFileURL.path != thisFile {
                scanned += 1
                let text = try String(contentsOf: file, encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where line.contains("Mutex<") || line.contains("Mutex(") {
                    guard !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") else { continue }
                    offenders.append(
                        "\(file.path.dropFirst(root.path.count + 1)):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))"
                    )
                }
            }
        }
        #expect(scanned > 100, "the scan found only \(scanned) Swift files under \(root.path)")
        #expect(
            offenders.isEmpty,
            "use Locked (StrataCore) instead of Synchronization.Mutex:\n\(offenders.joined(separator: "\n"))")
    }
}
