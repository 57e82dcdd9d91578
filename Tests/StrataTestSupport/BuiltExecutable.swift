import Foundation
import StrataCore

/// The executable `name` (`strata`, a probe, `strata-torture`) the build put beside the test
/// bundle; throws when it was not built.
package func builtExecutable(_ name: String) throws -> URL {
    let bundleDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    #if os(Linux)
        let running = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    #else
        // Darwin has no /proc: the test bundle (`.xctest`) lies in the products directory.
        let bundle = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }
        let running = (bundle?.bundleURL ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath())
            .deletingLastPathComponent()
    #endif
    let directories = [
        bundleDirectory, bundleDirectory.deletingLastPathComponent(),
        running, running.deletingLastPathComponent(),
        Repository.root.appendingPathComponent(".build/debug"),
    ]
    for directory in directories {
        let candidate = directory.appendingPathComponent(name)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
            FileManager.default.isExecutableFile(atPath: candidate.path)
        {
            return candidate
        }
    }
    throw StrataError(.internalInconsistency, "\(name) is not built beside \(bundleDirectory.path)")
}

/// The full path of `program` on `PATH`, or `nil`.
package func which(_ program: String) -> URL? {
    for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
        let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(program)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return nil
}
