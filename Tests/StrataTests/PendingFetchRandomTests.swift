import Foundation
import Strata
import StrataCore
import StrataRandomGraph
import StrataTestSupport
import Testing

/// Fetches with pending changes give the same answer as evaluating the request by brute force
/// over the context's current state of every object: random inserts, updates (of the key the
/// fetches look up, too), deletes and relationship changes, random predicates (through a
/// relationship too), sorts, limits and offsets, on every backend, in a root context, in a
/// child over a parent with its own pending changes, and in a parent after a child's save.
@Suite struct PendingFetchRandomTests {
    static let model = RandomGraphModel.make("pending-random")

    static let schemes = ["memory", "sqlite", "lmdb"]

    /// The objects a run knows of, by the context whose view they are in.
    struct World {
        var employees: [ObjectID] = []
        var departments: [ObjectID] = []
        var nextKey: Int64 = 0
    }

    /// A coordinator on a new store of `scheme` seeded with 4 departments and 30 employees.
    private func seededCoordinator(_ scheme: String, in directory: URL) throws -> StoreCoordinator {
        let location = scheme == "memory" ? "" : directory.appendingPathComponent("pending.\(scheme)").path
        let coordinator = StoreCoordinator(model: Self.model)
        try coordinator.addStore(
            BuiltInBackends.registry.open(StoreURL(scheme: scheme, location: location), model: Self.model))
        return coordinator
    }

    private func populate(_ context: ObjectContext, _ world: inout World, random: inout SeededGenerator) throws {
        for index in 0..<4 {
            let department = try context.insert("Department")
            department["name"] = .string("d\(index)")
            department["budget"] = .integer(Int64(index * 50))
            world.departments.append(department.objectID)
        }
        for _ in 0..<30 { try insertEmployee(context, &world, random: &random) }
        try context.save()
        world.departments = try context.fetchObjectIDs(FetchRequest(entityName: "Department"))
        world.employees = try context.fetchObjectIDs(FetchRequest(entityName: "Employee"))
    }

    private func insertEmployee(_ context: ObjectContext, _ world: inout World, random: inout SeededGenerator) throws {
        let employee = try context.insert("Employee")
        employee["key"] = .integer(world.nextKey)
        world.nextKey += 1
        employee["name"] = .string(["ann", "bob", "al", "cy", "bea"].randomElement(using: &random)!)
        employee["rank"] = .integer(Int64.random(in: 0..<6, using: &random))
        employee["score"] = .double(Double(Int.random(in: 0..<20, using: &random)) / 4)
        if Bool.random(using: &random), let department = world.departments.randomElement(using: &random) {
            try employee.setObject(context.object(with: department), for: "department")
        }
        world.employees.append(employee.objectID)
    }

    /// One random change in `context`.
    private func change(_ context: ObjectContext, _ world: inout World, random: inout SeededGenerator) throws {
        let roll = Int.random(in: 0..<100, using: &random)
        if roll < 15 || world.employees.isEmpty {
            try insertEmployee(context, &world, random: &random)
            return
        }
        let index = Int.random(in: 0..<world.employees.count, using: &random)
        let employee = context.object(with: world.employees[index])
        switch roll {
        case 15..<25:
            context.delete(employee)
            world.employees.remove(at: index)
        case 25..<40:
            employee["key"] = .integer(Int64.random(in: 0..<world.nextKey, using: &random))
        case 40..<60:
            employee["rank"] = .integer(Int64.random(in: 0..<6, using: &random))
        case 60..<70:
            employee["name"] = .string(["ann", "bob", "al", "cy", "bea", "zed"].randomElement(using: &random)!)
        case 70..<80:
            let department = world.departments.randomElement(using: &random).map { context.object(with: $0) }
            try employee.setObject(Bool.random(using: &random) ? department : nil, for: "department")
        case 80..<90:
            let department = context.object(with: world.departments.randomElement(using: &random)!)
            department["name"] = .string("d\(Int.random(in: 0..<6, using: &random))")
        default:
            let department = context.object(with: world.departments.randomElement(using: &random)!)
            department["budget"] = .integer(Int64.random(in: 0..<200, using: &random))
        }
    }

    /// A random request for employees.
    private func randomRequest(_ world: World, random: inout SeededGenerator) throws -> FetchRequest {
        let key = Int64.random(in: 0..<max(1, world.nextKey), using: &random)
        let rank = Int64.random(in: 0..<6, using: &random)
        let predicates = try RandomGraphModel.predicates(key: key, rank: rank)
        let sortChoices = RandomGraphModel.sortChoices
        var request = FetchRequest(
            entityName: "Employee", predicate: predicates.randomElement(using: &random)!,
            sorts: sortChoices.randomElement(using: &random)!)
        if Bool.random(using: &random) { request.limit = Int.random(in: 1...5, using: &random) }
        if Bool.random(using: &random) { request.offset = Int.random(in: 0...3, using: &random) }
        return request
    }

    /// The answer by brute force: the request evaluated over the current state of every
    /// employee `world` knows of, in `context`.
    private func bruteForce(_ request: FetchRequest, in context: ObjectContext, _ world: World) throws -> [ObjectID] {
        let snapshots = world.employees.map { context.object(with: $0).currentSnapshot() }
        let evaluator = PredicateEvaluator(model: Self.model) { id in
            let object = context.object(with: id)
            return object.isDeleted ? nil : object.currentSnapshot()
        }
        return try QueryEvaluation.run(request, over: snapshots, evaluator: evaluator).snapshots().map(\.objectID)
    }

    /// Checks a few random requests in `context` against brute force.
    private func compare(
        _ context: ObjectContext, _ world: World, random: inout SeededGenerator, _ note: String
    ) throws {
        context.checkPendingChangeBookkeeping()
        for _ in 0..<3 {
            let request = try randomRequest(world, random: &random)
            let expected = try bruteForce(request, in: context, world)
            let fetched = try context.fetch(request).map(\.objectID)
            #expect(fetched == expected, "\(note): fetch \(request)")
            #expect(try context.fetchObjectIDs(request) == expected, "\(note): IDs of \(request)")
            #expect(try context.count(request) == expected.count, "\(note): count of \(request)")
            for (object, id) in zip(try context.fetch(request), expected) {
                #expect(object.currentSnapshot() == context.object(with: id).currentSnapshot())
            }
        }
    }

    @Test(arguments: schemes, [1, 2, 3])
    func fetchesInAContextWithRandomPendingChangesMatchBruteForce(_ scheme: String, seed: UInt64) throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = try seededCoordinator(scheme, in: directory)
        var random = SeededGenerator(seed: seed)
        var world = World()
        try populate(ObjectContext(coordinator: coordinator), &world, random: &random)
        let context = ObjectContext(coordinator: coordinator)
        for step in 0..<60 {
            try change(context, &world, random: &random)
            try compare(context, world, random: &random, "\(scheme), seed \(seed), step \(step)")
        }
        try context.save()
        // Saved objects have their permanent IDs now.
        world.employees = try context.fetchObjectIDs(FetchRequest(entityName: "Employee"))
        try compare(context, world, random: &random, "\(scheme), seed \(seed), after saving")
        try compare(ObjectContext(coordinator: coordinator), world, random: &random, "\(scheme), a fresh context")
    }

    @Test(arguments: schemes, [4, 5, 6, 7])
    func fetchesInAChildAndItsParentWithPendingChangesMatchBruteForce(_ scheme: String, seed: UInt64) throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = try seededCoordinator(scheme, in: directory)
        var random = SeededGenerator(seed: seed)
        var world = World()
        try populate(ObjectContext(coordinator: coordinator), &world, random: &random)
        let parent = ObjectContext(coordinator: coordinator, name: "parent")
        for _ in 0..<20 { try change(parent, &world, random: &random) }
        let child = ObjectContext(parent: parent, name: "child")
        for step in 0..<40 {
            try change(child, &world, random: &random)
            try compare(child, world, random: &random, "\(scheme), seed \(seed), child step \(step)")
        }
        try child.save()
        try compare(parent, world, random: &random, "\(scheme), seed \(seed), the parent after the child's save")
        for step in 0..<20 {
            try change(parent, &world, random: &random)
            try compare(parent, world, random: &random, "\(scheme), seed \(seed), parent step \(step)")
        }
    }
}
