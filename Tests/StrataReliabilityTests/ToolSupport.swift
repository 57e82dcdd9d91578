import Foundation
import StrataCore
import Testing

/// The `strata` tool as a user runs it: the built binary, the example model, a working directory.
struct Tool {
    /// What one run of the tool did.
    struct Run {
        var status: Int32
        var output: String
        var errors: String
        /// The error code the tool printed (`strata: CODE: ...`), if any.
        var errorCode: String? {
            guard let line = errors.split(separator: "\n").first(where: { $0.hasPrefix("strata: ") }) else { return nil }
            return line.dropFirst("strata: ".count).split(separator: ":").first.map(String.init)
        }
    }

    /// The model the tool's commands use.
    static let modelDirectory: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Examples/Models/Company.stratamodel").path

    static func executable() throws -> URL {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [directory.appendingPathComponent("strata"), directory.deletingLastPathComponent().appendingPathComponent("strata")]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) && !$0.hasDirectoryPath }) else {
            throw StrataError(.internalInconsistency, "the strata tool was not found beside \(directory.path)")
        }
        return found
    }

    /// Starts `strata ARGUMENTS --model ...` in `directory`; `asUser` runs it as that user
    /// (through `setpriv`, when the tests run as root).
    static func start(_ arguments: [String], in directory: String, asUser user: String? = nil) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        let tool = try executable()
        var words = arguments + ["--model", modelDirectory]
        if let user, getuid() == 0 {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            words = ["--reuid=\(user)", "--regid=nogroup", "--clear-groups", "--", tool.path] + words
        } else {
            process.executableURL = tool
        }
        process.arguments = words
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, output, errors)
    }

    /// Reads what a started tool prints and waits for it.
    static func finish(_ started: (Process, Pipe, Pipe)) -> Run {
        let (process, output, errors) = started
        let errorData = Locked(Data())
        let done = DispatchSemaphore(value: 0)
        let handle = errors.fileHandleForReading
        Thread {
            let data = handle.readDataToEndOfFile()
            errorData.withLock { $0 = data }
            done.signal()
        }.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        done.wait()
        return Run(status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self), errors: String(decoding: errorData.withLock { $0 }, as: UTF8.self))
    }

    /// Runs `strata ARGUMENTS` to the end.
    @discardableResult
    static func run(_ arguments: [String], in directory: String, asUser user: String? = nil) throws -> Run {
        finish(try start(arguments, in: directory, asUser: user))
    }

    /// The object count `strata inspect --json` reports, or `nil` when it fails.
    static func objectCount(_ url: String, in directory: String) throws -> Int? {
        let run = try run(["inspect", url, "--json"], in: directory)
        guard run.status == 0, let range = run.output.range(of: "\"objects\":") else { return nil }
        return Int(run.output[range.upperBound...].prefix { $0.isNumber })
    }

    /// Writes a JSON Lines file of one department and `employees` employees of the model's
    /// first version (name and height only), and returns its path.
    static func writeEmployees(_ employees: Int, to path: String) throws -> String {
        var text = #"{"entity":"Department","ref":"d0","attributes":{"name":"engineering"}}"# + "\n"
        for i in 0..<employees {
            text += #"{"entity":"Employee","ref":"e\#(i)","attributes":{"name":"employee \#(i)","height":1.75},"relationships":{"department":"d0"}}"# + "\n"
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

/// The URL text of a store named `name` for `scheme`, relative to the working directory.
func storeText(_ scheme: String, _ name: String) -> String {
    scheme == "lmdb" ? "lmdb:\(name)-lmdb" : "\(scheme):\(name).\(scheme)"
}
