import Foundation
import StrataCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A fresh directory for one test, under one folder per test process in the system's temporary
/// directory; that folder is removed when the process exits.
package struct TemporaryDirectory: Sendable {
    /// The folder of this test process (world-traversable, so that a child process running as
    /// another user can reach a directory a test opens to it).
    package static let root: String = {
        let root = NSTemporaryDirectory() + "strata-tests-" + shortUniqueName()
        try? FileManager.default.createDirectory(
            atPath: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        atexit { TemporaryDirectory.remove(TemporaryDirectory.root) }
        return root
    }()

    /// The directory's path.
    package let path: String

    /// Makes a new directory with `permissions` (by default, open for others to read, as a
    /// directory made with the usual umask is).
    package init(permissions: Int = 0o755) {
        path = Self.root + "/" + shortUniqueName()
        try? FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: permissions])
    }

    /// The directory as a file URL.
    package var url: URL { URL(fileURLWithPath: path, isDirectory: true) }

    /// A path inside the directory.
    package func file(_ name: String) -> String { path + "/" + name }

    /// A location for a new store of `scheme` named `name` in the directory.
    package func storeURL(_ scheme: String, name: String = "store") -> StoreURL {
        StrataTestSupport.storeURL(scheme, in: url, name: name)
    }

    /// Removes the directory and everything in it, whatever permissions a test left on them.
    package func cleanUp() { Self.remove(path) }

    /// Removes `path` and everything below it, opening each directory to its owner first.
    package static func remove(_ path: String) {
        openToOwner(path)
        try? FileManager.default.removeItem(atPath: path)
    }

    private static func openToOwner(_ path: String) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return
        }
        chmod(path, 0o700)
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
            openToOwner(path + "/" + entry)
        }
    }
}

/// 16 random hexadecimal digits: short, so that a socket's path inside a test's directory stays
/// within the 108 bytes a socket address holds.
private func shortUniqueName() -> String {
    String(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16)).lowercased()
}

/// A location for a new store of `scheme` named `name` in `directory`: `NAME.SCHEME` (a
/// `memory:` store, which has no file, gets a name no other test uses).
package func storeURL(_ scheme: String, in directory: URL, name: String = "store") -> StoreURL {
    switch scheme {
    case "memory": StoreURL(scheme: "memory", location: "\(name)-\(UUID().uuidString)")
    default: StoreURL(scheme: scheme, location: directory.appendingPathComponent("\(name).\(scheme)").path)
    }
}

/// Runs `body` with a new temporary directory, removed when `body` returns.
package func withTemporaryDirectory<R>(_ body: (URL) throws -> R) throws -> R {
    let directory = TemporaryDirectory()
    defer { directory.cleanUp() }
    return try body(directory.url)
}
