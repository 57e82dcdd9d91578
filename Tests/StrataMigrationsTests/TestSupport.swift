import Foundation
import StrataCore
import StrataInMemory
import StrataLMDB
import StrataMigrations
import StrataPostgres
import StrataSQLite
import StrataTestSupport
import StrataXML

/// The built-in backends, for tests parameterized over them; PostgreSQL only when a test server
/// is set (``PostgresTestServer``; `PostgresMigrationServerTests` says so when it is not).
enum BackendKind: String, CaseIterable, CustomStringConvertible, Sendable {
    case memory, sqlite, lmdb, xml, postgres

    static var allCases: [BackendKind] {
        [.memory, .sqlite, .lmdb, .xml] + (PostgresTestServer.shouldRun ? [.postgres] : [])
    }

    var description: String { rawValue }

    var backend: any StoreBackend {
        switch self {
        case .memory: return InMemoryBackend()
        case .sqlite: return SQLiteBackend()
        case .lmdb: return LMDBBackend()
        case .xml: return XMLBackend()
        case .postgres: return PostgresBackend()
        }
    }

    /// A fresh store location in `directory` (for PostgreSQL, a new schema on the test server).
    func url(in directory: URL, name: String = "store") -> StoreURL {
        guard self == .postgres else { return storeURL(rawValue, in: directory, name: name) }
        return (try? PostgresTestServer.freshStoreURL()) ?? StoreURL(scheme: "postgres", location: "/missing")
    }

    /// Whether its stores outlive the test's directory (and are destroyed by the test).
    var outlivesDirectory: Bool { self == .memory || self == .postgres }
}

/// A registry holding the four built-in backends.
func builtInRegistry() -> StoreRegistry {
    let registry = StoreRegistry()
    for kind in BackendKind.allCases { registry.register(kind.backend) }
    return registry
}

/// Inserts `snapshots` (already inverse-consistent) after taking their keys from the store.
func insert(_ store: any PersistentStore, _ build: (_ ids: (String, Int) throws -> [ObjectID]) throws -> [Snapshot])
    throws
{
    let snapshots = try build { entity, count in try store.obtainPermanentIDs(for: entity, count: count) }
    try store.save(SaveRequest(inserts: snapshots))
}

/// Every snapshot of `entity`, by primary key.
func all(_ store: any PersistentStore, _ entity: String) throws -> [Snapshot] {
    try store.fetch(FetchRequest(entityName: entity)).snapshots()
}

/// A Company v1 store: 2 companies, 3 departments, `employees` employees (every third without
/// a birthday, every second without a height).
struct CompanySeed {
    static let referenceDate = Date(timeIntervalSinceReferenceDate: 600_000_000)

    static func seed(_ store: any PersistentStore, employees: Int = 12) throws {
        let model = store.model
        let company = try model.requireEntity("Company")
        let department = try model.requireEntity("Department")
        let employee = try model.requireEntity("Employee")
        let companies = try store.obtainPermanentIDs(for: "Company", count: 2)
        let departments = try store.obtainPermanentIDs(for: "Department", count: 3)
        let people = try store.obtainPermanentIDs(for: "Employee", count: employees)
        var inserts: [Snapshot] = []
        let departmentCompany = [0, 0, 1]
        for (i, id) in companies.enumerated() {
            var s = Snapshot(objectID: id, entity: company)
            s.attributes = [.string("Company \(i)"), i == 0 ? .date(referenceDate) : .null]
            s.relationships = [
                .toMany(departments.indices.filter { departmentCompany[$0] == i }.map { departments[$0] })
            ]
            inserts.append(s)
        }
        for (i, id) in departments.enumerated() {
            var s = Snapshot(objectID: id, entity: department)
            s.attributes = [.string("Department \(i)"), i == 1 ? .null : .decimal(Decimal(1000 * (i + 1)))]
            s.relationships = [
                .toOne(companies[departmentCompany[i]]),
                .toMany(people.indices.filter { $0 % 3 == i }.map { people[$0] }),
            ]
            inserts.append(s)
        }
        for (i, id) in people.enumerated() {
            var s = Snapshot(objectID: id, entity: employee)
            s.attributes = [
                .string("Employee \(i)"),
                i % 3 == 0 ? .null : .date(referenceDate.addingTimeInterval(Double(i) * 86_400)),
                i % 2 == 0 ? .null : .double(1.5 + Double(i) / 100),
            ]
            s.relationships = [.toOne(departments[i % 3])]
            inserts.append(s)
        }
        try store.save(SaveRequest(inserts: inserts))
    }

    /// The expected employee `i` at version `version` (name, birthday/dateOfBirth, height, level).
    static func expectedEmployee(_ i: Int, version: String) -> [String: Value] {
        let birthday: Value = i % 3 == 0 ? .null : .date(referenceDate.addingTimeInterval(Double(i) * 86_400))
        var height: Value = i % 2 == 0 ? .null : .double(1.5 + Double(i) / 100)
        switch version {
        case "v1": return ["name": .string("Employee \(i)"), "birthday": birthday, "height": height]
        case "v2":
            return ["name": .string("Employee \(i)"), "dateOfBirth": birthday, "height": height, "level": .integer(1)]
        default:
            if height.isNull { height = .double(1.7) }
            return ["name": .string("Employee \(i)"), "dateOfBirth": birthday, "height": height, "level": .integer(1)]
        }
    }
}

/// Checks a Company store at `version` holds exactly the seed; returns a list of problems.
func companyProblems(_ store: any PersistentStore, version: String, employees: Int = 12) throws -> [String] {
    var problems: [String] = []
    let model = store.model
    let employee = try model.requireEntity("Employee")
    let department = try model.requireEntity("Department")
    let company = try model.requireEntity("Company")
    let people = try all(store, "Employee")
    if people.count != employees { problems.append("\(people.count) employees, expected \(employees)") }
    for (i, s) in people.enumerated() {
        for (name, value) in CompanySeed.expectedEmployee(i, version: version)
        where s.value(of: name, in: employee) != value {
            problems.append(
                "\(s.objectID).\(name) = \(String(describing: s.value(of: name, in: employee))), expected \(value)")
        }
        let dept = s.relationship("department", in: employee)?.targets.first?.primaryKey
        if dept != Int64(i % 3 + 1) { problems.append("\(s.objectID).department = \(String(describing: dept))") }
        if s.objectID.primaryKey != Int64(i + 1) {
            problems.append("\(s.objectID) has key \(String(describing: s.objectID.primaryKey)), expected \(i + 1)")
        }
        if version == "v3", s.relationship("projects", in: employee) != .toMany([]) {
            problems.append("\(s.objectID).projects is not empty")
        }
    }
    let departments = try all(store, "Department")
    if departments.count != 3 { problems.append("\(departments.count) departments") }
    for (i, d) in departments.enumerated() {
        let members = d.relationship("employees", in: department)?.targets.compactMap(\.primaryKey) ?? []
        let expected = (0..<employees).filter { $0 % 3 == i }.map { Int64($0 + 1) }
        if members != expected { problems.append("\(d.objectID).employees = \(members), expected \(expected)") }
        let budget: Value = i == 1 ? .null : .decimal(Decimal(1000 * (i + 1)))
        if d.value(of: "budget", in: department) != budget { problems.append("\(d.objectID).budget") }
    }
    let companies = try all(store, "Company")
    if companies.count != 2 { problems.append("\(companies.count) companies") }
    for (i, c) in companies.enumerated() {
        let ds = c.relationship("departments", in: company)?.targets.compactMap(\.primaryKey) ?? []
        if ds != (i == 0 ? [1, 2] : [3]) { problems.append("\(c.objectID).departments = \(ds)") }
    }
    if version == "v3", try all(store, "Project").count != 0 { problems.append("projects exist") }
    return problems
}
