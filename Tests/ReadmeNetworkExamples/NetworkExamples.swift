// The README's TaskigURL examples, built the way most clients build (Swift 5 language mode):
// building this target is the check. They need a server to run against, so they are not run
// here; TaskigURLTests makes the same calls against one on 127.0.0.1.
import Foundation
import Taskig
import TaskigURL

enum NetworkExamples {
    static func fetchingAndDownloading(iso: URL, file: URL, bytes: Progress) throws {
        let (data, response) = try URL(string: "http://127.0.0.1:8080/")!.await()
        let (saved, _) = try URLSession.shared.taskig.download(from: iso, to: file, progress: bytes).await()
        _ = (data, response, saved)
    }

    static func retryingWhatAnotherRunCanFix() throws {
        let api = URL(string: "http://127.0.0.1:8080/api")!.validatingStatus(200..<300)
        let answer = try api.timeout(2).retry(
            3, delay: 0.2,
            if: { error in
                if case TaskigURLError.badStatus(let code, _, _) = error { return code >= 500 }
                return true  // timeouts and transport errors
            }
        ).await()
        _ = answer
    }
}
