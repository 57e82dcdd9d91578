import Foundation
import StrataCore
import Testing

@testable import StrataData

/// What a history descriptor's predicate becomes: the bounds, authors and date a store's history
/// is read by, or a typed error naming the condition it cannot run.
@Suite struct HistoryPredicateTranslationTests {
    static func token(_ sequence: Int64, store: String = "S") -> DefaultHistoryToken {
        DefaultHistoryToken(StrataCore.HistoryToken(storeIdentifier: store, sequence: sequence))
    }

    func filter(_ predicate: Predicate<DefaultHistoryTransaction>) throws -> HistoryFilter {
        try HistoryPredicateTranslator.filter(predicate)
    }

    @Test func tokenComparisonsBoundTheHistory() throws {
        let five = Self.token(5)
        #expect(try filter(#Predicate { $0.token > five }).after == five.token)
        #expect(try filter(#Predicate { $0.token >= five }).after == Self.token(4).token)
        #expect(try filter(#Predicate { five < $0.token }).after == five.token, "mirrored")
        #expect(try filter(#Predicate { $0.token <= five }).through == five.token)
        #expect(try filter(#Predicate { $0.token < five }).through == Self.token(4).token)
        let equal = try filter(#Predicate { $0.token == five })
        #expect(equal.after == Self.token(4).token && equal.through == five.token)
        #expect(equal.storeIdentifier == "S")
    }

    @Test func authorsAndDatesSelectTransactions() throws {
        let (author, two, five) = ("widget", Self.token(2), Self.token(5))
        let both = try filter(#Predicate { $0.author == author && $0.token > two })
        #expect(both.authors == ["widget"] && both.after == two.token)
        #expect(try filter(#Predicate { $0.author == "app" || $0.author == "widget" }).authors == ["app", "widget"])
        #expect(try filter(#Predicate { $0.author == "app" && $0.author == "widget" }).matchesNothing)
        let date = Date(timeIntervalSince1970: 1_000)
        #expect(try filter(#Predicate { $0.timestamp < date }).before == date)
        #expect(try filter(#Predicate { _ in true }) == .everything)
        #expect(try filter(#Predicate { _ in false }).matchesNothing)
        #expect(try filter(#Predicate { $0.token > five && $0.token <= five }).matchesNothing)
    }

    @Test func whatAHistoryRequestCannotSayIsATypedErrorNamingIt() throws {
        let (one, inA, inB, epoch) = (
            Self.token(1), Self.token(1, store: "A"), Self.token(9, store: "B"), Date(timeIntervalSince1970: 0)
        )
        let cases: [(Predicate<DefaultHistoryTransaction>, String)] = [
            (#Predicate { $0.author != "app" }, "NotEqual"),
            (#Predicate { $0.changes.isEmpty }, "KeyPath"),
            (#Predicate { $0.author == nil }, "author"),
            (#Predicate { $0.timestamp > epoch }, "timestamp"),
            (#Predicate { $0.token > one || $0.author == "app" }, "Disjunction"),
            (#Predicate { $0.token > inA && $0.token < inB }, "two stores"),
        ]
        for (predicate, named) in cases {
            let error = try #require(throws: StrataError.self) { try filter(predicate) }
            #expect(error.code == .invalidPredicate)
            #expect(error.location["expression"] != nil && error.location["predicate"] != nil)
            #expect("\(error.message) \(error.location)".contains(named), "\(error)")
        }
    }
}
