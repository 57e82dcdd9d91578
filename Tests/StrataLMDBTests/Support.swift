import Foundation
import StrataCore
import StrataLMDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fresh directory path (not created) under the temporary directory, removed by `cleanUp`.
func temporaryStorePath(_ label: String = "store") -> String {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("strata-lmdb-tests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
    return base.appendingPathComponent("\(label).lmdb").path
}

/// Removes the temporary parent of a path made by `temporaryStorePath`.
func cleanUp(_ path: String) {
    let parent = URL(fileURLWithPath: path).deletingLastPathComponent()
    chmodTree(parent.path)
    try? FileManager.default.removeItem(at: parent)
}

private func chmodTree(_ path: String) {
    chmod(path, 0o700)
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
        var isDirectory: ObjCBool = false
        let child = path + "/" + entry
        if FileManager.default.fileExists(atPath: child, isDirectory: &isDirectory), isDirectory.boolValue { chmodTree(child) }
    }
}

/// The test model: departments and employees, with every attribute type, an index, a unique
/// constraint, a to-one/to-many pair and an ordered to-many.
func companyModel() throws -> Model {
    try Model(versionIdentifier: "v1", entities: [
        Entity(
            "Department",
            attributes: [Attribute("name", .string), Attribute("budget", .double, isOptional: true)],
            relationships: [Relationship("employees", to: "Employee", inverse: "department", toMany: true)],
            uniqueConstraints: [["name"]]),
        Entity(
            "Employee",
            attributes: [
                Attribute("name", .string),
                Attribute("age", .integer32),
                Attribute("height", .double, isOptional: true),
                Attribute("hired", .date, isOptional: true),
                Attribute("active", .boolean, defaultValue: .bool(true)),
                Attribute("photo", .binary, isOptional: true),
                Attribute("badge", .uuid, isOptional: true),
                Attribute("site", .uri, isOptional: true),
                Attribute("salary", .decimal, isOptional: true),
                Attribute("rating", .float, isOptional: true),
                Attribute("level", .integer16, isOptional: true),
            ],
            relationships: [
                Relationship("department", to: "Department", inverse: "employees"),
                Relationship("mentor", to: "Employee", inverse: "mentees"),
                Relationship("mentees", to: "Employee", inverse: "mentor", toMany: true, ordered: true),
            ],
            indexes: [Entity.Index(name: "byAge", properties: ["age"]), Entity.Index(name: "byName", properties: ["name", "age"])]),
    ])
}

/// The probe executable's model (see Backends/LMDB/Probe/main.swift).
func probeModel() throws -> Model {
    try Model(versionIdentifier: "probe", entities: [
        Entity("Item", attributes: [Attribute("name", .string), Attribute("n", .integer64)], uniqueConstraints: [["name"]]),
    ])
}

/// Opens an LMDB store at `path`.
func openStore(_ path: String, model: Model? = nil, options: StoreOptions = StoreOptions()) throws -> LMDBStore {
    try LMDBBackend().openStore(StoreURL(scheme: "lmdb", location: path), model: model ?? companyModel(), options: options)
}

/// An employee snapshot with the given values and everything else empty.
func employee(_ id: ObjectID, name: String, age: Int64, department: ObjectID? = nil, model: Model) -> Snapshot {
    let entity = model.entity(named: "Employee")!
    var snapshot = Snapshot(objectID: id, entity: entity)
    snapshot.attributes[0] = .string(name)
    snapshot.attributes[1] = .integer(age)
    snapshot.relationships[0] = .toOne(department)
    return snapshot
}

/// A department snapshot.
func department(_ id: ObjectID, name: String, employees: [ObjectID] = [], model: Model) -> Snapshot {
    let entity = model.entity(named: "Department")!
    var snapshot = Snapshot(objectID: id, entity: entity)
    snapshot.attributes[0] = .string(name)
    snapshot.relationships[0] = .toMany(employees)
    return snapshot
}

/// Where the build put the executables (the probe, beside the test bundle).
func productsDirectory() -> URL {
    #if os(Linux)
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    #else
    // Darwin has no /proc: the test bundle (`.xctest`) lies in the products directory.
    let bundle = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }
    let executable = bundle?.bundleURL ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    #endif
    var directory = executable.deletingLastPathComponent()
    while directory.path != "/" {
        if FileManager.default.fileExists(atPath: directory.appendingPathComponent("strata-lmdb-probe").path) { return directory }
        directory = directory.deletingLastPathComponent()
    }
    let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    return source.appendingPathComponent(".build/debug")
}

/// The result of running a program.
struct ProgramOutput {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs `executable` with `arguments` and waits for it.
func run(_ executable: URL, _ arguments: [String]) throws -> ProgramOutput {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
    let stderrData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProgramOutput(
        status: process.terminationStatus,
        stdout: String(decoding: stdoutData, as: UTF8.self),
        stderr: String(decoding: stderrData, as: UTF8.self))
}

/// Runs the probe executable.
func runProbe(_ arguments: [String]) throws -> ProgramOutput {
    try run(productsDirectory().appendingPathComponent("strata-lmdb-probe"), arguments)
}

/// The full path of a program on `PATH`.
func which(_ program: String) -> URL? {
    for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
        let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(program)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return nil
}
