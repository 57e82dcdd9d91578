import Foundation
import StrataCore
import StrataTortureKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One directory per test process under the system temporary directory, removed at exit.
let reliabilityRoot: String = NSTemporaryDirectory() + "strata-reliability-" + UUID().uuidString

private let removeRootAtExit: Void = {
    atexit { try? FileManager.default.removeItem(atPath: reliabilityRoot) }
}()

/// A fresh directory, unique per call.
func temporaryDirectory() -> String {
    _ = removeRootAtExit
    let path = reliabilityRoot + "/" + UUID().uuidString
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    return path
}

/// A URL for a new store of `scheme` in a fresh directory.
func temporaryStoreURL(_ scheme: String) -> StoreURL {
    let name = ["sqlite": "store.sqlite", "lmdb": "store-lmdb", "xml": "store.xml"][scheme] ?? "store"
    return StoreURL(scheme: scheme, location: temporaryDirectory() + "/" + name)
}

/// The `strata-torture` executable built beside the test bundle.
func tortureExecutable() throws -> URL {
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let candidates = [directory.appendingPathComponent("strata-torture"), directory.deletingLastPathComponent().appendingPathComponent("strata-torture")]
    guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
        throw StrataError(.internalInconsistency, "strata-torture is not built beside \(directory.path)")
    }
    return found
}

/// A `strata-torture` child whose standard output is read line by line.
final class TortureChild {
    let process = Process()
    private let output = Pipe()
    private var buffer: [UInt8] = []
    private var ended = false
    /// Every complete line read so far.
    private(set) var lines: [String] = []

    init(_ arguments: [String]) throws {
        process.executableURL = try tortureExecutable()
        process.arguments = arguments
        process.standardOutput = output
        try process.run()
    }

    /// Reads until a line starting with `prefix` arrives (or the output ends, or `timeout` passes).
    func waitForLine(startingWith prefix: String, timeout: TimeInterval = 60) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let line = lines.first(where: { $0.hasPrefix(prefix) }) { return line }
            if ended || Date() >= deadline { return nil }
            readSome(timeoutMilliseconds: 100)
        }
    }

    /// Kills the child with SIGKILL, reads what it wrote and reaps it.
    func kill() {
        #if canImport(Glibc)
        _ = Glibc.kill(process.processIdentifier, SIGKILL)
        #else
        _ = Darwin.kill(process.processIdentifier, SIGKILL)
        #endif
        finish()
    }

    /// Reads to the end of the output and waits for the child to exit.
    func finish() {
        while !ended { readSome(timeoutMilliseconds: 1_000) }
        process.waitUntilExit()
    }

    private func readSome(timeoutMilliseconds: Int32) {
        let fd = output.fileHandleForReading.fileDescriptor
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, timeoutMilliseconds) > 0 else { return }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = read(fd, &chunk, chunk.count)
        if n <= 0 { ended = true; return }
        buffer += chunk[0..<n]
        while let newline = buffer.firstIndex(of: 10) {
            lines.append(String(decoding: buffer[0..<newline], as: UTF8.self))
            buffer.removeSubrange(0...newline)
        }
    }
}

/// Runs `strata-torture` to the end and returns its output lines and exit status.
func runTorture(_ arguments: [String]) throws -> (status: Int32, lines: [String]) {
    let child = try TortureChild(arguments)
    child.finish()
    return (child.process.terminationStatus, child.lines)
}

/// Prints a line the CI log collects (`reliability: ...`).
func reportCount(_ line: String) {
    print("reliability: " + line)
}
