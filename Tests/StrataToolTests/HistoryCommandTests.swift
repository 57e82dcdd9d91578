import Foundation
import Strata
import StrataTestSupport
import StrataTransfer
import Testing

/// `strata history`: the listing, its JSON, its filters, pruning and the errors for bad input.
@Suite struct HistoryCommandTests {
    static let schemes = ["sqlite", "lmdb"]

    /// A store with four recorded saves: the seed, a rename by alice in her editor, a project
    /// by bob, and a delete by alice.
    struct Recorded {
        let directory = TemporaryDirectory()
        let url: StoreURL
        let identifier: String
        let transactions: [HistoryTransaction]
        /// The renamed employee's names before and after.
        let rename: (old: String, new: String)

        init(_ scheme: String) throws {
            url = directory.storeURL(scheme)
            let store = try Fixture.open(url)
            defer { try? store.close() }
            try seedCompany(store, employees: 6)
            let employee = Fixture.model.entity(named: "Employee")!
            let name = employee.attributeIndex(named: "name")!
            let employees = try store.fetch(FetchRequest(entityName: "Employee")).snapshots()
            var renamed = employees[0]
            guard case .string(let old) = renamed.attributes[name] else {
                throw StrataError(.internalInconsistency, "")
            }
            rename = (old, "Renamed Ünïcode")
            renamed.attributes[name] = .string(rename.new)
            try store.save(
                SaveRequest(
                    updates: [SaveRequest.Update(renamed, expectedVersion: renamed.version)],
                    transactionAuthor: "alice",
                    contextName: "editor"))
            let projectEntity = Fixture.model.entity(named: "Project")!
            var project = Snapshot(
                objectID: try store.obtainPermanentIDs(for: "Project", count: 1)[0], entity: projectEntity)
            project.attributes[projectEntity.attributeIndex(named: "title")!] = .string("Atlas")
            try store.save(SaveRequest(inserts: [project], transactionAuthor: "bob"))
            // The delete unlinks the employee from its department and projects, as a context would.
            let members = projectEntity.relationshipIndex(named: "members")!
            let doomed = employees[employees.count - 1]
            var updates: [SaveRequest.Update] = []
            for var department in try store.fetch(FetchRequest(entityName: "Department")).snapshots() {
                let index = Fixture.model.entity(named: "Department")!.relationshipIndex(named: "employees")!
                guard department.relationships[index].targets.contains(doomed.objectID) else { continue }
                department.relationships[index] = .toMany(
                    department.relationships[index].targets.filter { $0 != doomed.objectID })
                updates.append(SaveRequest.Update(department, expectedVersion: department.version))
            }
            for var project in try store.fetch(FetchRequest(entityName: "Project")).snapshots() {
                guard project.relationships[members].targets.contains(doomed.objectID) else { continue }
                project.relationships[members] = .toMany(
                    project.relationships[members].targets.filter { $0 != doomed.objectID })
                updates.append(SaveRequest.Update(project, expectedVersion: project.version))
            }
            try store.save(
                SaveRequest(
                    updates: updates, deletes: [SaveRequest.Delete(doomed.objectID, expectedVersion: doomed.version)],
                    transactionAuthor: "alice"))
            identifier = store.identifier
            transactions = try #require(store.capability((any HistoryRecording).self)).fetchHistory(HistoryRequest())
        }

        func close() { directory.cleanUp() }

        func history(_ arguments: String...) throws -> ProgramOutput {
            try strata(["history", url.description] + arguments)
        }

        /// The tokens `--json` listed.
        func tokens(_ run: ProgramOutput) throws -> [String] {
            try run.output.split(separator: "\n").map { line in
                guard case .string(let token)? = try parseJSON(String(line))["token"] else { return "" }
                return token
            }
        }
    }

    @Test(arguments: schemes)
    func theListingShowsEachTransactionAndEachChange(_ scheme: String) throws {
        let recorded = try Recorded(scheme)
        defer { recorded.close() }
        #expect(recorded.transactions.count == 4)
        let run = try recorded.history()
        #expect(run.status == 0, "\(run.errors)")
        let lines = run.output.split(separator: "\n").map(String.init)
        for transaction in recorded.transactions {
            let heading = "\(transaction.token)  \(JSONValueCoding.formatDate(transaction.timestamp))"
            #expect(lines.contains { $0.hasPrefix(heading) }, "\(heading) in \(run.output)")
        }
        #expect(lines.contains { $0.hasSuffix("  author alice  context editor") })
        let changes = recorded.transactions.flatMap(\.changes)
        for kind in HistoryChange.Kind.allCases {
            #expect(
                lines.filter { $0.hasPrefix("  \(kind.rawValue)  strata://") }.count
                    == changes.filter { $0.kind == kind }.count)
        }
        #expect(lines.contains { $0.contains(#"name "\#(recorded.rename.old)" → "\#(recorded.rename.new)""#) })
        #expect(lines.last == "(4 transactions)")
    }

    @Test(arguments: schemes)
    func jsonHasOneObjectPerTransaction(_ scheme: String) throws {
        let recorded = try Recorded(scheme)
        defer { recorded.close() }
        let run = try recorded.history("--json")
        #expect(run.status == 0, "\(run.errors)")
        let objects = try run.output.split(separator: "\n").map { try parseJSON(String($0)) }
        #expect(objects.count == recorded.transactions.count)
        for (object, transaction) in zip(objects, recorded.transactions) {
            #expect(object["token"] == .string(transaction.token.description))
            #expect(object["sequence"] == .integer(transaction.token.sequence))
            #expect(object["author"] == (transaction.author.map(JSONNode.string) ?? .null))
            #expect(object["contextName"] == (transaction.contextName.map(JSONNode.string) ?? .null))
            guard case .array(let changes)? = object["changes"] else {
                Issue.record("no changes in \(object)")
                continue
            }
            #expect(changes.map { $0["kind"] } == transaction.changes.map { .string($0.kind.rawValue) })
            #expect(changes.map { $0["object"] } == transaction.changes.map { .string($0.objectID.uriRepresentation) })
        }
        let rename = objects[1]["changes"]
        guard case .array(let changes)? = rename else { return }
        #expect(changes[0]["properties"]?["name"]?["old"] == .string(recorded.rename.old))
        #expect(changes[0]["properties"]?["name"]?["new"] == .string(recorded.rename.new))
    }

    @Test(arguments: schemes)
    func filtersChooseTransactionsAndChanges(_ scheme: String) throws {
        let recorded = try Recorded(scheme)
        defer { recorded.close() }
        let tokens = recorded.transactions.map(\.token.description)
        let alice = recorded.transactions.filter { $0.author == "alice" }.map(\.token.description)
        #expect(try recorded.tokens(recorded.history("--json", "--author", "alice")) == alice)
        #expect(
            try recorded.tokens(recorded.history("--json", "--author", "alice", "--author", "bob"))
                == Array(tokens.dropFirst()))
        let projects = try recorded.history("--json", "--entity", "Project")
        let withProjects = recorded.transactions.filter { $0.changes.contains { $0.entityName == "Project" } }
        #expect(try recorded.tokens(projects) == withProjects.map(\.token.description))
        #expect(!projects.output.contains(#""entity":"Employee""#))
        let second = recorded.transactions[1].token
        #expect(
            try recorded.tokens(recorded.history("--json", "--after", String(second.sequence)))
                == Array(tokens.dropFirst(2)))
        #expect(
            try recorded.tokens(recorded.history("--json", "--after", second.description)) == Array(tokens.dropFirst(2))
        )
        #expect(try recorded.tokens(recorded.history("--json", "--limit", "1")) == [tokens[0]])
    }

    @Test(arguments: schemes)
    func pruningSaysHowManyAndLaterReadersAreToldTheirTokenExpired(_ scheme: String) throws {
        let recorded = try Recorded(scheme)
        defer { recorded.close() }
        let pruned = try recorded.history("--prune-before", String(recorded.transactions[1].token.sequence), "--json")
        #expect(pruned.status == 0, "\(pruned.errors)")
        #expect(try parseJSON(pruned.output)["pruned"] == .integer(2))
        let expired = try recorded.history("--after", String(recorded.transactions[0].token.sequence))
        #expect(expired.status == 4)
        #expect(expired.errors.contains("historyExpired"))
        #expect(
            try recorded.tokens(recorded.history("--json"))
                == recorded.transactions.dropFirst(2).map(\.token.description))

        let kept = try recorded.history("--keep-last", "1")
        #expect(kept.output == "pruned 1 transaction from \(recorded.url)\n")
        let all = try recorded.history("--prune-before", "2100-01-01", "--json")
        #expect(try parseJSON(all.output)["pruned"] == .integer(1))
        #expect(try recorded.history().output == "(0 transactions)\n")
    }

    @Test(arguments: schemes)
    func aDateBeforeEverySaveOrATokenBeforeTheFirstPrunesNothing(_ scheme: String) throws {
        let recorded = try Recorded(scheme)
        defer { recorded.close() }
        for value in [
            "2000-01-01", "2000-01-01T00:00:00Z", "2000-01-01T01:00:00.250+01:00", "0", "\(recorded.identifier):0",
        ] {
            let run = try recorded.history("--prune-before", value, "--json")
            #expect(run.status == 0, "\(value): \(run.errors)")
            #expect(try parseJSON(run.output)["pruned"] == .integer(0), "\(value)")
        }
    }

    @Test func badTokensAndDatesAreTypedErrorsNamingTheValue() throws {
        let recorded = try Recorded("sqlite")
        defer { recorded.close() }
        let refused: [([String], String)] = [
            (["--after", "soon"], "'soon' is not a history token"),
            (["--after", "other-store:3"], "belongs to store 'other-store'"),
            (["--prune-before", "2026-11-27T12:00"], "has no time zone"),
            (["--prune-before", "20261127"], "could be transaction 20261127 or the date 2026-11-27"),
            (["--prune-before", "2026-13-45"], "is not a date"),
            (["--prune-before", "other-store:1"], "is a token of the store 'other-store'"),
            (["--prune-before", "yesterday"], "'yesterday' is not a history token"),
        ]
        for (arguments, message) in refused {
            let run = try strata(["history", recorded.url.description] + arguments + ["--json"])
            #expect(run.status == 1, "\(arguments)")
            #expect(run.errors.contains(message), "\(arguments): \(run.errors)")
            #expect(try parseJSON(run.output)["error"]?["code"] == .string("invalidRequest"), "\(arguments)")
        }
        let entity = try recorded.history("--entity", "Nope")
        #expect(entity.status == 1)
        #expect(entity.errors.contains("unknownEntity"))
        #expect(try recorded.history("--prune-before", "1", "--after", "1").status == 64)
        #expect(try recorded.history("--prune-before", "1", "--keep-last", "1").status == 64)
        // Nothing was pruned by any of them.
        #expect(try recorded.tokens(recorded.history("--json")).count == recorded.transactions.count)
    }

    @Test func aStoreOpenedWithHistoryOffSaysSo() throws {
        let recorded = try Recorded("sqlite")
        defer { recorded.close() }
        let run = try strata(["history", recorded.url.description + "?history=off"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.errors.contains("history is off"))
    }
}
