import Foundation
import StrataCore
import StrataEngine
import StrataTestSupport

/// Random changes to a store of ``RandomGraphModel``: the randomized tests make them in their
/// contexts, and `strata-change-probe` in another process.
package enum RandomGraphChanges {
    /// Inserts an employee with `key` and random other values, in a random department or none.
    package static func insertEmployee(_ context: ObjectContext, key: Int64, random: inout SeededGenerator) throws {
        let employee = try context.insert("Employee")
        employee["key"] = .integer(key)
        employee["name"] = .string(["ann", "bob", "al", "cy", "bea"].randomElement(using: &random)!)
        employee["rank"] = .integer(Int64.random(in: 0..<6, using: &random))
        employee["score"] = .double(Double(Int.random(in: 0..<20, using: &random)) / 4)
        let departments = try context.fetchObjectIDs(FetchRequest(entityName: "Department"))
        if Bool.random(using: &random), let department = departments.randomElement(using: &random) {
            try employee.setObject(context.object(with: department), for: "department")
        }
    }

    /// One random change of an object in `context` (not saved).
    package static func change(_ context: ObjectContext, nextKey: inout Int64, random: inout SeededGenerator) throws {
        let employees = try context.fetchObjectIDs(FetchRequest(entityName: "Employee"))
        let departments = try context.fetchObjectIDs(FetchRequest(entityName: "Department"))
        let roll = Int.random(in: 0..<100, using: &random)
        if roll < 20 || employees.isEmpty {
            try insertEmployee(context, key: nextKey, random: &random)
            nextKey += 1
            return
        }
        let employee = context.object(with: employees.randomElement(using: &random)!)
        switch roll {
        case 20..<32:
            context.delete(employee)
        case 32..<45:
            employee["key"] = .integer(Int64.random(in: 0..<nextKey, using: &random))
        case 45..<62:
            employee["rank"] = .integer(Int64.random(in: 0..<6, using: &random))
        case 62..<72:
            employee["name"] = .string(["ann", "bob", "al", "cy", "bea", "zed"].randomElement(using: &random)!)
        case 72..<80:
            employee["score"] = .double(Double(Int.random(in: 0..<20, using: &random)) / 4)
        case 80..<90:
            let department = departments.randomElement(using: &random).map { context.object(with: $0) }
            try employee.setObject(Bool.random(using: &random) ? department : nil, for: "department")
        default:
            let department = context.object(with: departments.randomElement(using: &random)!)
            department["name"] = .string("d\(Int.random(in: 0..<6, using: &random))")
        }
    }

    /// Saves `context` on its queue and returns the changes of its did-save notification,
    /// for merging into another context.
    package static func saveReturningChanges(_ context: ObjectContext) throws -> ContextChanges {
        let saved = Locked(ContextChanges())
        let token = NotificationCenter.default.addObserver(
            forName: ObjectContext.didSaveNotification, object: context, queue: nil
        ) { note in
            if let changes = note.userInfo?[ObjectContext.changesKey] as? ContextChanges {
                saved.withLock { $0 = changes }
            }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        try context.performAndWait { try context.save() }
        return saved.withLock { $0 }
    }
}
