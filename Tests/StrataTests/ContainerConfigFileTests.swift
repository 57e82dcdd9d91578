import Foundation
import Strata
import Testing

/// A configuration file with a mistake names the file, where (line and column, or JSON path)
/// and the value.
@Suite struct ContainerConfigFileTests {
    private func failure(_ text: String) -> StrataError? {
        #expect(throws: StrataError.self) { try StoreDescription.parse(Data(text.utf8), file: "/etc/app/stores.json") }
    }

    @Test func invalidJSONNamesTheFileLineAndColumn() {
        let error = failure("{\n  \"stores\": [\n    { \"url\": \"memory:\" \n  ]\n}")
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.location["file"] == "/etc/app/stores.json" && error?.location["line"] == "4")
        #expect(error?.message.contains("/etc/app/stores.json") == true)
    }

    @Test func anUnknownKeyIsNamedWithItsPath() {
        let error = failure(#"{"stores": [{"url": "memory:", "readonly": true}]}"#)
        #expect(error?.code == .invalidConfiguration && error?.location["path"] == "$.stores[0].readonly")
        #expect(error?.message.contains("readOnly") == true, "the message lists the keys a store may have")
        #expect(failure(#"{"stores": [], "extra": 1}"#)?.location["path"] == "$.extra")
    }

    @Test func aValueOfTheWrongTypeIsNamedWithItsPathAndValue() {
        let error = failure(#"{"stores": [{"url": "memory:", "readOnly": "yes"}]}"#)
        #expect(
            error?.code == .invalidConfiguration && error?.location["path"] == "$.stores[0].readOnly"
                && error?.location["value"] == "\"yes\"")
        #expect(failure(#"{"stores": [{"url": 7}]}"#)?.location["path"] == "$.stores[0].url")
        #expect(
            failure(#"{"stores": [{"url": "memory:", "options": {"mapSize": 1.5}}]}"#)?.location["path"]
                == "$.stores[0].options.mapSize")
        #expect(failure(#"{"stores": {"url": "memory:"}}"#)?.location["path"] == "$.stores")
    }

    @Test func backendOptionValuesAreCheckedWhereTheFileSaysThem() {
        let synchronous = failure(#"{"stores": [{"url": "sqlite:a.sqlite", "sqliteSynchronous": "sometimes"}]}"#)
        #expect(
            synchronous?.location["path"] == "$.stores[0].sqliteSynchronous"
                && synchronous?.location["value"] == "\"sometimes\"")
        #expect(synchronous?.message.contains("normal, full, off") == true)
        let mapSize = failure(#"{"stores": [{"url": "lmdb:db", "lmdbMapSize": 4096}]}"#)
        #expect(mapSize?.location["path"] == "$.stores[0].lmdbMapSize" && mapSize?.location["value"] == "4096")
    }

    @Test func aMalformedOrMissingURLIsNamedWithTheFileAndPath() {
        let malformed = failure(#"{"stores": [{"url": "no scheme here"}]}"#)
        #expect(
            malformed?.code == .invalidStoreURL && malformed?.location["file"] == "/etc/app/stores.json"
                && malformed?.location["path"] == "$.stores[0].url")
        #expect(failure(#"{"stores": [{"configuration": "Notes"}]}"#)?.message.contains("\"url\"") == true)
        #expect(failure(#"{"stores": []}"#)?.location["path"] == "$.stores")
        #expect(failure(#"{}"#)?.message.contains("stores") == true)
    }

    @Test func anUnreadableFileIsAnIOErrorNamingIt() {
        let path = "/nonexistent-\(UUID().uuidString)/stores.json"
        let error = #expect(throws: StrataError.self) {
            try StoreDescription.load(contentsOf: URL(fileURLWithPath: path))
        }
        #expect(error?.code == .io && error?.location["file"] == path)
    }
}
