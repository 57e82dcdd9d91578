import Foundation
import StrataCore

/// A started program whose standard output and error are read to their end on threads of their
/// own, so that neither pipe can fill and stall it.
package final class RunningProgram {
    /// The child process.
    package let process: Process
    private let collected = Locked((output: Data(), errors: Data()))
    private let readers = DispatchGroup()

    /// Starts `executable` with `arguments` in `directory`; `input` is written to its standard
    /// input (else it reads nothing), `environment` is added to this process's own.
    package init(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil, input: String? = nil,
        environment: [String: String] = [:]
    ) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe.closedOnExec()
        let errors = Pipe.closedOnExec()
        let standardInput = Pipe.closedOnExec()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input == nil ? FileHandle.nullDevice : standardInput
        try process.run()
        self.process = process
        read(output.fileHandleForReading) { $0.output = $1 }
        read(errors.fileHandleForReading) { $0.errors = $1 }
        if let input {
            standardInput.fileHandleForWriting.write(Data(input.utf8))
            try standardInput.fileHandleForWriting.close()
        }
    }

    private func read(
        _ handle: FileHandle, into store: @escaping @Sendable (inout (output: Data, errors: Data), Data) -> Void
    ) {
        readers.enter()
        DispatchQueue.global().async { [collected, readers] in
            let data = handle.readDataToEndOfFile()
            collected.withLock { store(&$0, data) }
            readers.leave()
        }
    }

    /// Waits for the program to end and returns what it printed.
    package func finish() -> ProgramOutput {
        readers.wait()
        process.waitUntilExit()
        let (output, errors) = collected.withLock { $0 }
        return ProgramOutput(
            status: process.terminationStatus,
            output: String(decoding: output, as: UTF8.self),
            errors: String(decoding: errors, as: UTF8.self))
    }
}

/// Runs `executable` with `arguments` to its end (see ``RunningProgram``).
package func runProgram(
    _ executable: URL, _ arguments: [String], in directory: URL? = nil, input: String? = nil,
    environment: [String: String] = [:]
) throws -> ProgramOutput {
    try RunningProgram(executable, arguments, in: directory, input: input, environment: environment).finish()
}

/// Runs the built executable `name` (see ``builtExecutable(_:)``) with `arguments` to its end.
package func runBuilt(
    _ name: String, _ arguments: [String], in directory: URL? = nil, input: String? = nil,
    environment: [String: String] = [:]
) throws -> ProgramOutput {
    try runProgram(builtExecutable(name), arguments, in: directory, input: input, environment: environment)
}
