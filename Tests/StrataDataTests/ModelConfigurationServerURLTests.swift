import Foundation
import StrataCore
import Testing

@testable import StrataData

/// A configuration may name a PostgreSQL store; a URL no backend takes is refused without
/// printing its password.
@Suite struct ModelConfigurationServerURLTests {
    @Test(arguments: ["postgres", "postgresql"])
    func aPostgresURLPicksThePostgresBackend(_ scheme: String) throws {
        let configuration = ModelConfiguration(
            url: URL(string: "\(scheme)://app:pw7k@db.example.com/app?schema=trips")!)
        let url = try configuration.storeURL
        #expect(url.scheme == scheme && url.host == "db.example.com" && url.query["schema"] == "trips")
        #expect(url.password == "pw7k" && !url.description.contains("pw7k"))
    }

    @Test func anUnknownSchemeIsRefusedWithoutItsPassword() throws {
        let configuration = ModelConfiguration(url: URL(string: "ftp://app:pw7k@db.example.com/app")!)
        let error = #expect(throws: StrataError.self) { try configuration.storeURL }
        #expect(error?.code == .invalidStoreURL)
        #expect(
            error.map { !"\($0)".contains("pw7k") && "\($0)".contains("app:***@") } ?? false,
            "\(String(describing: error))")
    }
}
