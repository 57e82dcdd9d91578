import Foundation
import StrataCore

/// The kit's model and data: the Company example model (its newest version, the same structure as
/// `Examples/Models/Company.stratamodel/v3.json`) plus an `AllTypes` entity with one optional
/// attribute of every type.
public enum ConformanceFixtures {
    /// Company, Department, Employee and Project, as in `Company.stratamodel` v3.
    public static let companyEntities: [Entity] = [
        Entity(
            "Company",
            attributes: [
                Attribute("name", .string, validation: AttributeValidation(minimumLength: 1)),
                Attribute("founded", .date, isOptional: true),
            ],
            relationships: [
                Relationship("departments", to: "Department", inverse: "company", toMany: true, deleteRule: .cascade)
            ]),
        Entity(
            "Department",
            attributes: [
                Attribute("name", .string, validation: AttributeValidation(minimumLength: 1)),
                Attribute("budget", .decimal, isOptional: true),
            ],
            relationships: [
                Relationship("company", to: "Company", inverse: "departments"),
                Relationship("employees", to: "Employee", inverse: "department", toMany: true),
            ]),
        Entity(
            "Employee",
            attributes: [
                Attribute("name", .string, validation: AttributeValidation(minimumLength: 1, maximumLength: 100)),
                Attribute("dateOfBirth", .date, isOptional: true, renamingIdentifier: "birthday"),
                Attribute(
                    "height", .double, defaultValue: .double(1.7),
                    validation: AttributeValidation(minimum: .double(0), maximum: .double(3))),
                Attribute(
                    "level", .integer16, defaultValue: .integer(1),
                    validation: AttributeValidation(minimum: .integer(1), maximum: .integer(10))),
            ],
            relationships: [
                Relationship("department", to: "Department", inverse: "employees"),
                Relationship("projects", to: "Project", inverse: "members", toMany: true),
            ],
            indexes: [Entity.Index(name: "byName", properties: ["name"])]),
        Entity(
            "Project",
            attributes: [
                Attribute(
                    "title", .string, validation: AttributeValidation(minimumLength: 1), preservesValueOnDeletion: true),
                Attribute("deadline", .date, isOptional: true),
            ],
            relationships: [Relationship("members", to: "Employee", inverse: "projects", toMany: true, ordered: true)],
            uniqueConstraints: [["title"]]),
    ]

    /// An entity with one optional attribute of every ``AttributeType``.
    public static let allTypesEntity = Entity(
        "AllTypes",
        attributes: [
            Attribute("i16", .integer16, isOptional: true), Attribute("i32", .integer32, isOptional: true),
            Attribute("i64", .integer64, isOptional: true), Attribute("dbl", .double, isOptional: true),
            Attribute("flt", .float, isOptional: true), Attribute("dec", .decimal, isOptional: true),
            Attribute("str", .string, isOptional: true), Attribute("flag", .boolean, isOptional: true),
            Attribute("date", .date, isOptional: true), Attribute("bin", .binary, isOptional: true),
            Attribute("uuid", .uuid, isOptional: true), Attribute("uri", .uri, isOptional: true),
        ])

    /// The Company example model, version `v3`.
    public static let companyModel: Model = try! Model(versionIdentifier: "v3", entities: companyEntities)

    /// The kit's model: ``companyModel``'s entities plus ``allTypesEntity``.
    public static let model: Model = try! Model(
        versionIdentifier: "conformance", entities: companyEntities + [allTypesEntity])

    /// What ``seed(_:run:)`` inserted, by name.
    struct Seeded {
        var companies: [String: ObjectID] = [:]
        var departments: [String: ObjectID] = [:]
        var employees: [String: ObjectID] = [:]
        var projects: [String: ObjectID] = [:]
        var snapshots: [ObjectID: Snapshot] = [:]
    }

    static func date(_ text: String) -> Value { .date(JSONValueCoding.parseDate(text)!) }

    /// Employees: name, date of birth, height, level, department.
    static let employeeRows: [(String, Value, Double, Int64, String?)] = [
        ("lxz", date("1990-05-01T08:30:00Z"), 1.7, 1, "Engineering"),
        ("Alice", date("1985-03-15T00:00:00Z"), 1.62, 3, "Engineering"),
        ("bob", .null, 1.85, 2, "Engineering"),
        ("张伟", date("1960-07-20T12:00:00Z"), 1.75, 5, "研发部"),
        ("Иван", date("1955-12-31T23:59:59Z"), 1.9, 4, "Отдел продаж"),
        ("ИВАН", date("2000-02-29T00:00:00Z"), 1.7, 1, "Отдел продаж"),
        ("Émilie", date("1949-01-01T00:00:00Z"), 1.55, 2, "研发部"),
        ("emilie", .null, 1.6, 1, nil),
        ("Zoë", date("1970-01-01T00:00:00Z"), 0.0, 10, "Engineering"),
    ]

    /// Inserts the standard graph in one save: 2 companies, 3 departments, 9 employees (Latin,
    /// Chinese and Russian names, a missing birthday, one without department), 3 projects with
    /// ordered members.
    static func seed(_ store: any PersistentStore, run: ConformanceRun) throws -> Seeded {
        var seeded = Seeded()
        let companyIDs = try run.ids(store, "Company", 2)
        let departmentIDs = try run.ids(store, "Department", 3)
        let employeeIDs = try run.ids(store, "Employee", employeeRows.count)
        let projectIDs = try run.ids(store, "Project", 3)
        seeded.companies = ["Acme": companyIDs[0], "Глобус": companyIDs[1]]
        let departmentRows: [(String, String, Value)] = [
            ("Engineering", "Acme", .decimal(Decimal(string: "1000.50")!)), ("研发部", "Acme", .null),
            ("Отдел продаж", "Глобус", .decimal(250)),
        ]
        for (i, row) in departmentRows.enumerated() { seeded.departments[row.0] = departmentIDs[i] }
        for (i, row) in employeeRows.enumerated() { seeded.employees[row.0] = employeeIDs[i] }
        let projectRows: [(String, Value, [String])] = [
            ("Apollo", date("2030-01-01T00:00:00Z"), ["bob", "lxz", "Alice"]), ("Борей", .null, ["Иван"]),
            ("空", .null, []),
        ]
        for (i, row) in projectRows.enumerated() { seeded.projects[row.0] = projectIDs[i] }

        var snapshots: [Snapshot] = []
        snapshots.append(
            try run.snapshot(
                companyIDs[0], ["name": "Acme", "founded": date("1990-01-01T00:00:00Z")],
                relationships: ["departments": .toMany([departmentIDs[0], departmentIDs[1]])]))
        snapshots.append(
            try run.snapshot(
                companyIDs[1], ["name": "Глобус"], relationships: ["departments": .toMany([departmentIDs[2]])]))
        for (i, row) in departmentRows.enumerated() {
            let members = employeeRows.enumerated().filter { $0.element.4 == row.0 }.map { employeeIDs[$0.offset] }
            snapshots.append(
                try run.snapshot(
                    departmentIDs[i], ["name": .string(row.0), "budget": row.2],
                    relationships: ["company": .toOne(seeded.companies[row.1]), "employees": .toMany(members.sorted())])
            )
        }
        for (i, row) in employeeRows.enumerated() {
            let projects = projectRows.enumerated().filter { $0.element.2.contains(row.0) }.map {
                projectIDs[$0.offset]
            }
            snapshots.append(
                try run.snapshot(
                    employeeIDs[i],
                    ["name": .string(row.0), "dateOfBirth": row.1, "height": .double(row.2), "level": .integer(row.3)],
                    relationships: [
                        "department": .toOne(row.4.flatMap { seeded.departments[$0] }),
                        "projects": .toMany(projects.sorted()),
                    ]))
        }
        for (i, row) in projectRows.enumerated() {
            snapshots.append(
                try run.snapshot(
                    projectIDs[i], ["title": .string(row.0), "deadline": row.1],
                    relationships: ["members": .toMany(row.2.map { seeded.employees[$0]! })]))
        }
        try store.save(SaveRequest(inserts: snapshots))
        for var snapshot in snapshots {
            snapshot.version = 1
            seeded.snapshots[snapshot.objectID] = snapshot
        }
        return seeded
    }
}
