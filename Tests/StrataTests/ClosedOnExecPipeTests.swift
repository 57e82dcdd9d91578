import Foundation
import StrataTestSupport
import Testing

/// The pipes the tests read a child's output through are not inherited by other programs the
/// process starts meanwhile with `posix_spawn` (as the PostgreSQL fault tests start a server
/// that keeps running): a reader sees the end of the output once the writer is done.
@Suite struct ClosedOnExecPipeTests {
    @Test func aProgramSpawnedMeanwhileDoesNotKeepThePipeOpen() throws {
        let pipe = Pipe.closedOnExec()
        var pid: pid_t = 0
        let arguments: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("5"), nil]
        defer { for pointer in arguments { free(pointer) } }
        #expect(posix_spawn(&pid, "/bin/sleep", nil, nil, arguments, environ) == 0)
        defer {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        pipe.fileHandleForWriting.write(Data("done".utf8))
        try pipe.fileHandleForWriting.close()
        let started = Date()
        let read = pipe.fileHandleForReading.readDataToEndOfFile()
        #expect(String(decoding: read, as: UTF8.self) == "done")
        #expect(Date().timeIntervalSince(started) < 3, "the end of the pipe waited for the spawned program")
    }
}
