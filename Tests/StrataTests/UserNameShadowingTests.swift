import Foundation
import Strata
import Testing

// User code that imports Strata and declares types with the same names as Strata's vocabulary.
// They are `fileprivate` only so that the other files of this test module keep Strata's types;
// name lookup is the same for an application's internal types: a declaration in the module
// being compiled hides an imported one of the same name, without ambiguity.

/// The user's own `Value`, which hides `Strata.Value` in this file.
private struct Value: Equatable {
    var amount: Int
}

/// The user's own `Model`, which hides `Strata.Model` in this file.
private struct Model {
    var title: String
}

/// The user's own `Sort`, which hides `Strata.Sort` in this file.
private enum Sort {
    case newestFirst
}

/// The user's own `Locked` (Strata's lock is not public, so nothing is hidden).
private final class Locked {
    var isOpen = false
}

/// Code that declares `Value`, `Model`, `Sort` or `Locked` of its own builds against `import Strata`:
/// the plain names are the user's, Strata's are spelled `Strata.Value`, `Strata.Model`,
/// `Strata.Sort`, and values passed to Strata's API need no type name at all.
@Suite struct UserNameShadowingTests {
    @Test func plainNamesAreTheUsersAndQualifiedNamesAreStratas() throws {
        let mine = Value(amount: 3)
        let title = Model(title: "mine").title
        let order = Sort.newestFirst
        let lock = Locked()
        #expect(mine == Value(amount: 3))
        #expect(title == "mine")
        #expect(order == .newestFirst)
        #expect(lock.isOpen == false)

        let model: Strata.Model = try Strata.Model(
            versionIdentifier: "v1",
            entities: [
                Entity("Note", attributes: [Attribute("text", .string), Attribute("rank", .integer64)])
            ])
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(BuiltInBackends.registry.open("memory:", model: model))
        let context = ObjectContext(coordinator: coordinator)
        for (text, rank) in [("b", 2), ("a", 1)] {
            let note = try context.insert("Note")
            note["text"] = .string(text)
            note["rank"] = Strata.Value.integer(Int64(rank))
        }
        try context.save()

        let sorts: [Strata.Sort] = [Strata.Sort("rank", ascending: false)]
        let texts = try context.fetch(FetchRequest(entityName: "Note", sorts: sorts)).map { note -> String? in
            if case .string(let text) = note["text"] { text } else { nil }
        }
        #expect(texts == ["b", "a"])
    }
}
