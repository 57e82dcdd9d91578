// The Swift samples of README.md's "A first look" that use the engine, as the README shows them
// (ReadmeSampleTests check that every README sample appears verbatim in Examples/ReadmeSamples).
// CI runs it in a directory of its own (it writes company.sqlite and Company.sqlite there).

import Foundation
import Strata

let versions = try VersionedModel(directory: URL(fileURLWithPath: "Examples/Models/Company.stratamodel"))
let store = try BuiltInBackends.registry.open("sqlite:company.sqlite", model: versions.current)

let tall = try ObjectPredicate(format: "height > %@ AND department.name ==[c] %@", 1.8, "engineering")
let names = try store.fetch(
    FetchRequest(
        entityName: "Employee", predicate: tall, sorts: [Sort("name")],
        resultType: .dictionaries, propertiesToFetch: ["name"]))

// The store: sqlite:Company.sqlite, or the URL in $STRATA_STORE when it is set.
let container = PersistentContainer(name: "Company", versionedModel: versions)
try await container.loadPersistentStores() // checks, migrates and opens it in the background
let ada = try await container.performBackgroundTask { context in
    let employee = try context.insert("Employee")
    employee["name"] = "Ada"
    try context.save()
    return employee.objectID // once this returns, the employee is in the store
}
