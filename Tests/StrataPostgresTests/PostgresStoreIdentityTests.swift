import Foundation
import StrataCore
import Testing

@testable import StrataPostgres

/// What tells two PostgreSQL URLs name one store: the server's answers, compared so that a store
/// about to be deleted is never taken for another one when the server will not say.
@Suite struct PostgresStoreIdentityTests {
    static let base = PostgresStoreIdentity(
        systemIdentifier: 7_712_878_084_853_642_825, databaseOID: 16385, schema: "app", storeIdentifier: "A")

    @Test func theClusterTheDatabaseAndTheSchemaDecide() {
        var other = Self.base
        #expect(Self.base.isSameStore(as: other))
        other.storeIdentifier = "B"
        #expect(Self.base.isSameStore(as: other), "the cluster's identifier wins over the store's")
        for change in [
            { (identity: inout PostgresStoreIdentity) in identity.systemIdentifier = 1 },
            { $0.databaseOID = 16_386 }, { $0.schema = "App" },
        ] {
            var changed = Self.base
            change(&changed)
            #expect(!Self.base.isSameStore(as: changed), "\(changed)")
        }
    }

    @Test func withoutTheClusterIdentifierTheStoresDecideAndElseTheAnswerIsYes() {
        var hidden = Self.base
        hidden.systemIdentifier = nil
        var other = hidden
        other.storeIdentifier = "B"
        #expect(!hidden.isSameStore(as: other))
        other.storeIdentifier = "A"
        #expect(hidden.isSameStore(as: other))
        other.storeIdentifier = nil
        #expect(hidden.isSameStore(as: other), "nothing tells them apart: the same, to be safe")
    }
}
