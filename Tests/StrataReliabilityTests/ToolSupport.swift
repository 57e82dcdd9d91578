import Foundation
import StrataCore
import StrataTestSupport

/// The `strata` tool as a user runs it: the built binary, the example model, a working directory.
enum Tool {
    /// Starts `strata ARGUMENTS --model ...` in `directory`; `asUser` runs it as that user
    /// (through `setpriv`, when the tests run as root).
    static func start(_ arguments: [String], in directory: String, asUser user: String? = nil) throws -> RunningProgram
    {
        let tool = try builtExecutable("strata")
        let model = user == nil ? Repository.companyModelDirectory.path : try readableModelCopy()
        let words = arguments + ["--model", model]
        let place = URL(fileURLWithPath: directory)
        if let user, getuid() == 0 {
            let privileges = ["--reuid=\(user)", "--regid=nogroup", "--clear-groups", "--", tool.path]
            return try RunningProgram(URL(fileURLWithPath: "/usr/bin/setpriv"), privileges + words, in: place)
        }
        return try RunningProgram(tool, words, in: place)
    }

    /// A copy of the example model that another user can read (the repository may sit in a
    /// directory only its owner can enter, as a fresh `mktemp -d` clone does), made once in the
    /// tests' temporary folder. Tests run in parallel, so the copy is made once per process
    /// (a static constant's initializer runs exactly once), never by two tests at the same time.
    static func readableModelCopy() throws -> String { try readableModel.get() }

    private static let readableModel = Result { () throws -> String in
        let copy = TemporaryDirectory.root + "/readable-model/" + Repository.companyModelDirectory.lastPathComponent
        let manager = FileManager.default
        if !manager.fileExists(atPath: copy) {
            try manager.createDirectory(
                atPath: (copy as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try manager.copyItem(atPath: Repository.companyModelDirectory.path, toPath: copy)
        }
        var path = copy
        while path.hasPrefix(TemporaryDirectory.root) {
            chmod(path, 0o755)
            path = (path as NSString).deletingLastPathComponent
        }
        for entry in try manager.subpathsOfDirectory(atPath: copy) {
            var isDirectory: ObjCBool = false
            _ = manager.fileExists(atPath: copy + "/" + entry, isDirectory: &isDirectory)
            chmod(copy + "/" + entry, isDirectory.boolValue ? 0o755 : 0o644)
        }
        return copy
    }

    /// Runs `strata ARGUMENTS` to the end.
    @discardableResult
    static func run(_ arguments: [String], in directory: String, asUser user: String? = nil) throws -> ProgramOutput {
        try start(arguments, in: directory, asUser: user).finish()
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
            text +=
                #"{"entity":"Employee","ref":"e\#(i)","attributes":{"name":"employee \#(i)","height":1.75},"relationships":{"department":"d0"}}"#
                + "\n"
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

/// The URL text of a store named `name` for `scheme`, relative to the working directory.
func storeText(_ scheme: String, _ name: String) -> String {
    scheme == "lmdb" ? "lmdb:\(name)-lmdb" : "\(scheme):\(name).\(scheme)"
}
