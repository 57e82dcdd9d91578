import StrataCore

/// Shorthands for building predicates in the kit without depending on the parser.
private func key(_ path: String) -> ObjectPredicate.Operand { .keyPath(PropertyPath(path)) }
private func compare(
    _ path: String, _ op: ObjectPredicate.Operator, _ value: Value, _ options: ObjectPredicate.Options = [],
    _ modifier: ObjectPredicate.Modifier = .direct
) -> ObjectPredicate {
    .comparison(.init(key(path), op, .constant(value), modifier: modifier, options: options))
}
private func list(_ values: [Value]) -> ObjectPredicate.Operand { .list(values.map { .constant($0) }) }
private func date(_ text: String) -> Value { ConformanceFixtures.date(text) }

extension ConformanceKit {
    /// Predicates over the seeded graph, by entity: every operator, modifier and option of the
    /// predicate language, key paths through to-one and to-many relationships, nulls and objects.
    static func predicateTable(_ seeded: ConformanceFixtures.Seeded) -> [(String, ObjectPredicate)] {
        let e = seeded.employees
        let d = seeded.departments
        let p = seeded.projects
        let employee: [ObjectPredicate] = [
            compare("name", .equal, "lxz"), compare("name", .notEqual, "lxz"), compare("name", .equal, nil),
            compare("dateOfBirth", .equal, nil), compare("dateOfBirth", .notEqual, nil),
            compare("height", .less, 1.7), compare("height", .lessOrEqual, 1.7), compare("height", .greater, 1.7),
            compare("height", .greaterOrEqual, 1.7), compare("height", .equal, 1.7),
            compare("height", .equal, .integer(0)),
            compare("level", .greater, 2), compare("level", .less, 2.5), compare("level", .notEqual, 1),
            compare("dateOfBirth", .less, date("1970-01-01T00:00:00Z")),
            compare("dateOfBirth", .greaterOrEqual, date("1990-05-01T08:30:00Z")),
            compare("dateOfBirth", .greater, nil),
            compare("name", .beginsWith, "E"), compare("name", .beginsWith, "e", .caseInsensitive),
            compare("name", .beginsWith, "E", .diacriticInsensitive),
            compare("name", .beginsWith, "EMI", [.caseInsensitive, .diacriticInsensitive]),
            compare("name", .beginsWith, ""),
            compare("name", .endsWith, "ie"), compare("name", .endsWith, "IE", .caseInsensitive),
            compare("name", .endsWith, "ван"),
            compare("name", .contains, "li"), compare("name", .contains, "LI", .caseInsensitive),
            compare("name", .contains, "伟"),
            compare("name", .contains, "иван", .caseInsensitive),
            compare("name", .contains, "o", .diacriticInsensitive),
            compare("name", .like, "*li*"), compare("name", .like, "?LICE", .caseInsensitive),
            compare("name", .like, "l?z"),
            compare("name", .like, "emil*", [.caseInsensitive, .diacriticInsensitive]), compare("name", .like, "*"),
            compare("name", .like, "И*Н"),
            compare("name", .matches, "[a-z]+"), compare("name", .matches, "[A-Z].*"),
            compare("name", .matches, "iv.*", .caseInsensitive),
            compare("name", .matches, "\\p{Han}+"), compare("name", .matches, "l"),
            .comparison(.init(key("name"), .in, list(["lxz", "bob", "nobody"]))),
            .comparison(
                .init(key("name"), .in, list(["ALICE", "zoe"]), options: [.caseInsensitive, .diacriticInsensitive])),
            .comparison(.init(key("level"), .in, list([1, 3]))),
            .comparison(.init(key("dateOfBirth"), .in, list([nil]))),
            .comparison(.init(key("height"), .between, list([1.6, 1.8]))),
            .comparison(.init(key("level"), .between, list([2, 4]))),
            compare("name", .less, "a"), compare("name", .greaterOrEqual, "b", .caseInsensitive),
            compare("name", .greater, "Ж"),
            compare("name", .equal, "ИВАН"), compare("name", .equal, "иван", .caseInsensitive),
            compare("name", .equal, "EMILIE", [.caseInsensitive, .diacriticInsensitive]),
            compare("department.name", .equal, "Engineering"), compare("department.name", .equal, nil),
            compare("department.company.name", .beginsWith, "Гл"), compare("department.budget", .greater, 500),
            .comparison(.init(key("department"), .equal, .objectID(d["Engineering"]!))),
            compare("department", .equal, nil), compare("department", .notEqual, nil),
            compare("projects.title", .equal, "Apollo", [], .any),
            compare("projects.title", .equal, "Apollo", [], .none),
            compare("projects.title", .beginsWith, "A", [], .all),
            .comparison(.init(.count(PropertyPath("projects")), .greater, .constant(0))),
            .comparison(.init(.count(PropertyPath("projects")), .equal, .constant(0))),
            .comparison(.init(.evaluatedObject, .equal, .objectID(e["lxz"]!))),
            .comparison(.init(.evaluatedObject, .in, .list([.objectID(e["lxz"]!), .objectID(e["bob"]!)]))),
            .comparison(.init(key("projects"), .contains, .objectID(p["Apollo"]!))),
            .not(compare("height", .greater, 1.7)),
            .and([compare("height", .greater, 1.6), compare("level", .less, 5)]),
            .or([compare("name", .beginsWith, "И"), compare("department.name", .equal, "Engineering")]),
            .not(
                .or([
                    compare("dateOfBirth", .equal, nil),
                    .and([compare("level", .greater, 1), .not(compare("name", .contains, "i"))]),
                ])),
            .alwaysTrue, .alwaysFalse, .and([]), .or([]),
        ]
        let department: [ObjectPredicate] = [
            compare("budget", .greater, 500), compare("budget", .equal, nil),
            compare("budget", .lessOrEqual, .double(1000.5)),
            compare("employees.height", .greater, 1.8, [], .any), compare("employees.level", .less, 5, [], .all),
            compare("employees.name", .contains, "i", .caseInsensitive, .none),
            .comparison(.init(.count(PropertyPath("employees")), .greaterOrEqual, .constant(2))),
            compare("company.name", .equal, "Acme"),
            .comparison(.init(key("employees"), .contains, .objectID(e["张伟"]!))),
        ]
        let project: [ObjectPredicate] = [
            compare("members.name", .equal, "lxz", [], .any),
            .comparison(.init(.count(PropertyPath("members")), .equal, .constant(3))),
            .comparison(.init(key("title"), .in, list(["Apollo", "空"]))),
            compare("deadline", .greater, date("2029-01-01T00:00:00Z")),
            compare("members.department.name", .equal, "Engineering", [], .all),
        ]
        let company: [ObjectPredicate] = [
            compare("departments.employees.name", .equal, "alice", .caseInsensitive, .any),
            .comparison(.init(.count(PropertyPath("departments")), .equal, .constant(2))),
            compare("founded", .less, date("2000-01-01T00:00:00Z")),
        ]
        return employee.map { ("Employee", $0) } + department.map { ("Department", $0) }
            + project.map { ("Project", $0) } + company.map { ("Company", $0) }
    }

    static let queryChecks: [ConformanceCheck] = [
        ConformanceCheck("everyPredicateGivesTheEvaluatorsAnswer") { run in
            let store = try run.open()
            let seeded = try run.seed(store)
            var nonTrivial = 0
            for (entity, predicate) in predicateTable(seeded) {
                let request = FetchRequest(entityName: entity, predicate: predicate, resultType: .objectIDs)
                let native = try store.fetch(request).objectIDs()
                let reference = try store.fetchInMemory(request).objectIDs()
                try run.expectEqual(native, reference, "\(entity) where \(predicate)")
                let total = try run.all(store, entity).count
                if !reference.isEmpty && reference.count < total { nonTrivial += 1 }
            }
            try run.expect(nonTrivial >= 60, "only \(nonTrivial) predicates split the data; the fixtures are too weak")
        },
        ConformanceCheck("predicatesWithSortsLimitsAndResultTypesGiveTheEvaluatorsAnswer") { run in
            let store = try run.open()
            let seeded = try run.seed(store)
            for (entity, predicate) in predicateTable(seeded) where entity == "Employee" {
                for (sorts, limit, offset) in [
                    ([Sort("name")], 3, 1),
                    ([Sort("height", ascending: false), Sort("name", options: .caseInsensitive)], nil, 2), ([], 2, 0),
                ] as [([Sort], Int?, Int)] {
                    var request = FetchRequest(
                        entityName: entity, predicate: predicate, sorts: sorts, limit: limit, offset: offset)
                    try run.expectEqual(
                        try store.fetch(request).objectIDs(), try store.fetchInMemory(request).objectIDs(),
                        "\(entity) where \(predicate) sorted \(sorts.map(\.keyPath)) limit \(String(describing: limit)) offset \(offset)"
                    )
                    request.resultType = .count
                    try run.expectEqual(
                        try store.fetch(request).count(), try store.fetchInMemory(request).count(),
                        "count of \(entity) where \(predicate)")
                }
            }
        },
        ConformanceCheck("sortsGiveTheEvaluatorsOrder") { run in
            let store = try run.open()
            _ = try run.seed(store)
            let sortings: [[Sort]] = [
                [Sort("name")], [Sort("name", ascending: false)], [Sort("name", options: .caseInsensitive)],
                [Sort("name", options: [.caseInsensitive, .diacriticInsensitive])], [Sort("height")],
                [Sort("dateOfBirth")],
                [Sort("dateOfBirth", ascending: false)], [Sort("department.name"), Sort("name", ascending: false)],
                [Sort("level", ascending: false), Sort("height")],
                [Sort("department.company.name", ascending: false), Sort("level")],
            ]
            for sorts in sortings {
                let request = FetchRequest(entityName: "Employee", sorts: sorts, resultType: .objectIDs)
                try run.expectEqual(
                    try store.fetch(request).objectIDs(), try store.fetchInMemory(request).objectIDs(),
                    "Employee sorted by \(sorts.map { "\($0.keyPath) \($0.ascending ? "asc" : "desc")" })")
            }
        },
        ConformanceCheck("sortSemanticsArePinned") { run in
            let store = try run.open()
            let seeded = try run.seed(store)
            let names = { (sorts: [Sort]) throws -> [String] in
                try store.fetch(FetchRequest(entityName: "Employee", sorts: sorts)).snapshots().map {
                    snapshot -> String in
                    guard case .string(let s) = run.value(snapshot, "name") else { return "?" }
                    return s
                }
            }
            try run.expectEqual(
                try names([Sort("name")]), ["Alice", "Zoë", "bob", "emilie", "lxz", "Émilie", "ИВАН", "Иван", "张伟"],
                "names by Unicode scalars")
            try run.expectEqual(
                Array(try names([Sort("dateOfBirth")]).prefix(2)), ["bob", "emilie"],
                "nil dates first when ascending, ties by key")
            try run.expectEqual(
                Array(try names([Sort("dateOfBirth", ascending: false)]).suffix(2)), ["bob", "emilie"],
                "nil dates last when descending, ties by key")
            try run.expectEqual(try names([Sort("height")]).prefix(1).first, "Zoë", "smallest height first")
            let byKey = try store.fetch(FetchRequest(entityName: "Employee", resultType: .objectIDs)).objectIDs()
            try run.expectEqual(byKey, seeded.employees.values.sorted(), "unsorted fetch in primary-key order")
        },
        ConformanceCheck("limitAndOffsetSliceTheOrder") { run in
            let store = try run.open()
            _ = try run.seed(store)
            let all = try store.fetch(
                FetchRequest(entityName: "Employee", sorts: [Sort("name")], resultType: .objectIDs)
            ).objectIDs()
            let page = try store.fetch(
                FetchRequest(entityName: "Employee", sorts: [Sort("name")], limit: 3, offset: 2, resultType: .objectIDs)
            ).objectIDs()
            try run.expectEqual(page, Array(all[2..<5]), "limit 3 offset 2")
            try run.expectEqual(
                try store.fetch(FetchRequest(entityName: "Employee", limit: 0)).snapshots().count, 0, "limit 0")
            try run.expectEqual(
                try store.fetch(FetchRequest(entityName: "Employee", offset: 100)).snapshots().count, 0,
                "offset past the end")
            try run.expectEqual(
                try store.fetch(FetchRequest(entityName: "Employee", offset: 7)).snapshots().count, 2, "offset 7 of 9")
            try run.expectEqual(
                try store.fetch(FetchRequest(entityName: "Employee", limit: 4, offset: 7, resultType: .count)).count(),
                2, "count with limit and offset")
        },
        ConformanceCheck("countsMatchTheObjects") { run in
            let store = try run.open()
            _ = try run.seed(store)
            try run.expectEqual(
                try store.fetch(FetchRequest(entityName: "Employee", resultType: .count)).count(), 9, "employee count")
            try run.expectEqual(
                try store.fetch(
                    FetchRequest(
                        entityName: "Employee", predicate: compare("height", .greaterOrEqual, 1.7), resultType: .count)
                ).count(), 5, "count of height >= 1.7")
            try run.expectEqual(
                try store.fetch(FetchRequest(entityName: "AllTypes", resultType: .count)).count(), 0,
                "count of an empty entity")
        },
        ConformanceCheck("dictionaryResultsHoldTheRequestedPaths") { run in
            let store = try run.open()
            _ = try run.seed(store)
            let request = FetchRequest(
                entityName: "Employee", sorts: [Sort("name")], resultType: .dictionaries,
                propertiesToFetch: ["name", "department.name", "height"])
            let rows = try store.fetch(request).dictionaries()
            try run.expectEqual(rows, try store.fetchInMemory(request).dictionaries(), "dictionary rows")
            try run.expectEqual(rows.first?["department.name"], "Engineering", "department of Alice")
            try run.expectEqual(
                rows.first(where: { $0["name"] == "emilie" })?["department.name"], .null, "department of emilie (none)")
        },
        ConformanceCheck("predicateSemanticsArePinned") { run in
            let store = try run.open()
            let seeded = try run.seed(store)
            let names = { (entity: String, predicate: ObjectPredicate) throws -> Set<String> in
                Set(
                    try store.fetch(FetchRequest(entityName: entity, predicate: predicate)).snapshots().map {
                        s -> String in
                        guard case .string(let n) = run.value(s, entity == "Project" ? "title" : "name") else {
                            return "?"
                        }
                        return n
                    })
            }
            try run.expectEqual(
                try names("Employee", compare("name", .equal, "иван", .caseInsensitive)), ["Иван", "ИВАН"],
                "==[c] folds Cyrillic")
            try run.expectEqual(
                try names("Employee", compare("name", .equal, "emilie", [.caseInsensitive, .diacriticInsensitive])),
                ["Émilie", "emilie"], "==[cd]")
            try run.expectEqual(
                try names("Employee", compare("department.name", .equal, nil)), ["emilie"],
                "a key path through a nil to-one is nil")
            try run.expectEqual(
                try names("Employee", compare("projects.title", .beginsWith, "A", [], .all)).count, 8,
                "ALL over no values is true")
            try run.expectEqual(
                try names("Employee", compare("projects.title", .equal, "Apollo", [], .any)), ["lxz", "Alice", "bob"],
                "ANY")
            try run.expectEqual(
                try names("Employee", compare("dateOfBirth", .notEqual, date("1990-05-01T08:30:00Z"))).count, 8,
                "!= is true for nil")
            try run.expectEqual(
                try names("Employee", compare("dateOfBirth", .less, date("2100-01-01T00:00:00Z"))).count, 7,
                "< is false for nil")
            try run.expectEqual(
                try names("Employee", compare("name", .like, "?LICE", .caseInsensitive)), ["Alice"], "LIKE[c] with ?")
            try run.expectEqual(
                try names("Employee", compare("name", .matches, "l")), [], "MATCHES matches the whole string")
            try run.expectEqual(
                try names("Project", .comparison(.init(.count(PropertyPath("members")), .equal, .constant(0)))), ["空"],
                "@count")
            _ = seeded
        },
    ]
}
