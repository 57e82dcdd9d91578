import Foundation
import StrataCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process whose standard output is read line by line, so that a test can act (kill
/// it, start another) at the moment it prints a chosen line, and, when started with
/// `takingInput`, that a test can send lines to.
package final class LineReadingProgram {
    /// The child process.
    package let process = Process()
    private let output = Pipe.closedOnExec()
    private let input: Pipe?
    private var buffer: [UInt8] = []
    private var ended = false
    /// Every complete line read so far.
    package private(set) var lines: [String] = []

    /// Starts `executable` with `arguments`; its standard error goes to this process's own, or
    /// nowhere when `discardingErrors`. With `takingInput`, its standard input is a pipe that
    /// ``send(_:)`` writes to (else it shares this process's).
    package init(
        _ executable: URL, _ arguments: [String], discardingErrors: Bool = false, takingInput: Bool = false
    ) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = output
        input = takingInput ? Pipe.closedOnExec() : nil
        if let input { process.standardInput = input }
        if discardingErrors { process.standardError = FileHandle.nullDevice }
        try process.run()
    }

    /// Reads until a line starting with `prefix` arrives (or the output ends, or `timeout`
    /// seconds pass) and returns it.
    @discardableResult
    package func waitForLine(startingWith prefix: String, timeout: TimeInterval = 60) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let line = lines.first(where: { $0.hasPrefix(prefix) }) { return line }
            if ended || Date() >= deadline { return nil }
            readSome(timeoutMilliseconds: 100)
        }
    }

    /// Writes `line` and a newline to the child's standard input (started with `takingInput`).
    package func send(_ line: String) {
        precondition(input != nil, "send(_:) needs a program started with takingInput")
        input?.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Kills the child with SIGKILL, reads what it wrote and reaps it.
    package func kill() {
        #if canImport(Glibc)
            _ = Glibc.kill(process.processIdentifier, SIGKILL)
        #else
            _ = Darwin.kill(process.processIdentifier, SIGKILL)
        #endif
        finish()
    }

    /// Reads to the end of the output and waits for the child to exit.
    package func finish() {
        while !ended { readSome(timeoutMilliseconds: 1_000) }
        process.waitUntilExit()
    }

    private func readSome(timeoutMilliseconds: Int32) {
        let descriptor = output.fileHandleForReading.fileDescriptor
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, timeoutMilliseconds) > 0 else { return }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = read(descriptor, &chunk, chunk.count)
        if count <= 0 {
            ended = true
            return
        }
        buffer += chunk[0..<count]
        while let newline = buffer.firstIndex(of: 10) {
            lines.append(String(decoding: buffer[0..<newline], as: UTF8.self))
            buffer.removeSubrange(0...newline)
        }
    }
}
