import Foundation
import StrataCore

extension ConformanceKit {
    static let lifecycleChecks: [ConformanceCheck] = [
        ConformanceCheck("newStoreHasMetadataOfItsModel") { run in
            let store = try run.open()
            let metadata = try store.metadata()
            try run.expectEqual(metadata.storeType, run.subject.backend.scheme, "metadata store type")
            try run.expectEqual(metadata.modelVersionHash, run.model.versionHash, "metadata model hash")
            try run.expectEqual(metadata.storeIdentifier, store.identifier, "metadata identifier vs store.identifier")
            try run.expect(
                StoreIdentifier.isValid(metadata.storeIdentifier),
                "store identifier '\(metadata.storeIdentifier)' is not a valid identifier")
        },
        ConformanceCheck("aCarriedModelIsTheOneTheStoreWasWrittenWith") { run in
            let store = try run.open()
            try store.save(SaveRequest(metadataChanges: ["owner": "lxz"]))
            let carried = try run.subject.backend.storedModelJSON(at: run.url, versionHash: run.model.versionHash)
            // A backend may carry no model (the protocol's default); one that does carries this one.
            if let carried {
                try run.expect(
                    carried == run.model.jsonData(),
                    "the model JSON the store carries is not the bytes Model.jsonData() writes for its model")
            }
        },
        ConformanceCheck("userMetadataIsSavedAndRemoved") { run in
            let store = try run.open()
            try store.save(SaveRequest(metadataChanges: ["owner": "lxz", "note": "数据 данные"]))
            try run.expectEqual(
                try store.metadata().userInfo, ["owner": "lxz", "note": "数据 данные"], "user metadata after save")
            try store.save(SaveRequest(metadataChanges: ["owner": nil]))
            try run.expectEqual(
                try store.metadata().userInfo, ["note": "数据 данные"], "user metadata after removing a key")
        },
        ConformanceCheck("dataPersistsAcrossCloseAndReopen", requires: .persistent) { run in
            let store = try run.open()
            let seeded = try run.seed(store)
            try store.save(SaveRequest(metadataChanges: ["k": "v"]))
            let identifier = store.identifier
            let before = try run.all(store, "Employee")
            let usedKeys = Set(seeded.employees.values.compactMap(\.primaryKey))
            try store.close()
            let reopened = try run.open()
            try run.expectEqual(reopened.identifier, identifier, "store identifier after reopen")
            try run.expectEqual(try run.all(reopened, "Employee"), before, "employees after reopen")
            try run.expectEqual(try reopened.metadata().userInfo["k"], "v", "user metadata after reopen")
            let fresh = try reopened.obtainPermanentIDs(for: "Employee", count: 5).compactMap(\.primaryKey)
            try run.expect(
                usedKeys.isDisjoint(with: fresh),
                "keys handed out after reopen \(fresh) repeat earlier keys \(usedKeys.sorted())")
        },
        ConformanceCheck("reopeningWithAnotherModelIsAMismatchAndTouchesNothing", requires: .persistent) { run in
            let store = try run.open()
            _ = try run.seed(store)
            let before = try run.all(store, "Employee")
            try store.close()
            let other = try Model(versionIdentifier: "other", entities: ConformanceFixtures.companyEntities)
            let error = try run.expectError(.modelMismatch, "opening with a different model") {
                _ = try run.open(model: other)
            }
            try run.expect(
                error.message.contains(run.model.versionHash) && error.message.contains(other.versionHash),
                "the mismatch error must name both hashes: \(error.message)")
            let again = try run.open()
            try run.expectEqual(try run.all(again, "Employee"), before, "employees after a refused open")
        },
        ConformanceCheck("missingStoreIsNotCreatedWhenCreationIsOff") { run in
            var options = run.subject.options
            options.createsIfMissing = false
            try run.expectError(.storeNotFound, "opening a missing store with createsIfMissing = false") {
                _ = try run.open(options: options)
            }
            try run.expect(
                try run.subject.backend.metadata(at: run.url) == nil, "metadata(at:) must be nil where no store exists")
        },
        ConformanceCheck("metadataCanBeReadWithoutOpening", requires: .persistent) { run in
            let store = try run.open()
            let metadata = try store.metadata()
            try store.close()
            try run.expectEqual(try run.subject.backend.metadata(at: run.url), metadata, "backend.metadata(at:)")
        },
        ConformanceCheck("readOnlyStoreRefusesWrites", requires: [.persistent, .readOnly]) { run in
            let store = try run.open()
            _ = try run.seed(store)
            try store.close()
            var options = run.subject.options
            options.isReadOnly = true
            let readOnly = try run.open(options: options)
            try run.expectEqual(
                try run.all(readOnly, "Employee").count, ConformanceFixtures.employeeRows.count,
                "employees in a read-only store")
            let id = try run.all(readOnly, "Company")[0].objectID
            try run.expectError(.readOnly, "saving to a read-only store") {
                try readOnly.save(SaveRequest(deletes: [.init(id, expectedVersion: 1)]))
            }
        },
        ConformanceCheck("closedStoreThrowsStoreClosed") { run in
            let store = try run.open()
            try store.close()
            try run.expectError(.storeClosed, "fetching from a closed store") {
                _ = try store.fetch(FetchRequest(entityName: "Employee"))
            }
            try run.expectError(.storeClosed, "reading from a closed store") {
                _ = try store.snapshots(of: "Employee", among: nil)
            }
            try store.close()
        },
    ]
}
