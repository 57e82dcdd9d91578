import Foundation

extension Pipe {
    /// A pipe whose two ends no program this process starts inherits, except as the standard
    /// input, output or error a `Process` hands it (those are copies, made without the flag).
    ///
    /// Without it, a program started by another test at the same moment (a database server that
    /// keeps running) holds the write end of this pipe, and a reader waiting for its end waits
    /// for ever, although the program that wrote to it is gone.
    package static func closedOnExec() -> Pipe {
        let pipe = Pipe()
        for handle in [pipe.fileHandleForReading, pipe.fileHandleForWriting] {
            _ = fcntl(handle.fileDescriptor, F_SETFD, FD_CLOEXEC)
        }
        return pipe
    }
}
