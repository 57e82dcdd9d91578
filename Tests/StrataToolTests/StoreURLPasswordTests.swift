import Foundation
import Testing

@Suite struct StoreURLPasswordTests {
    @Test(arguments: [
        (["inspect", "postgres://app:s3cret@db.example.com/app"], false),
        (["inspect", "postgres://app:s3cret@db.example.com/app", "--json"], false),
        (["inspect", "sqlite://app:s3cret@localhost/tmp/x.sqlite"], true),
        (["inspect", "sqlite://app:s3cret@localhost:99999/tmp/x.sqlite", "--json"], true),
        (["validate", "xml://app:s3cret@localhost/tmp/x.xml"], true),
    ])
    func theToolNeverPrintsAPassword(_ arguments: [String], showsURL: Bool) throws {
        let run = try strata(arguments)
        #expect(run.status == 1)
        #expect(!run.output.contains("s3cret") && !run.errors.contains("s3cret"), "\(run.output)\(run.errors)")
        #expect(!showsURL || (run.output + run.errors).contains("app:***@"), "\(run.output)\(run.errors)")
    }
}
