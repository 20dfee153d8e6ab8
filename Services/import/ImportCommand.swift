import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The command line: options, the file, the run, the exit status.
enum ImportCommand {
    static let usage = """
        Usage: parse-import [options] --class <ClassName> <export.json>

        Loads a Parse JSON export ({"results":[...]} or a bare array of objects) into a class through the
        REST API, in batches. With the master key (the default) objectIds, createdAt and updatedAt are kept;
        with --new-ids the objects get new ids and dates.

        Options:
          --server <url>        server URL with its mount   (PARSE_SERVER_URL, http://127.0.0.1:1337/parse)
          --app-id <id>         application id              (PARSE_SERVER_APPLICATION_ID, myAppId)
          --master-key <key>    master key                  (PARSE_SERVER_MASTER_KEY, myMasterKey)
          --class <ClassName>   the class to load into (required)
          --batch-size <n>      objects per request (1-500, default 50)
          --new-ids             drop objectId, createdAt and updatedAt and send no master key
          --help                this text
        """

    static func main(_ arguments: [String]) async -> Int32 {
        let options: ImportOptions
        do {
            options = try ImportOptions(arguments: arguments, environment: ProcessInfo.processInfo.environment)
        } catch let error as ImportOptions.UsageError {
            FileHandle.standardError.write(Data("parse-import: \(error.message)\n\n\(usage)\n".utf8))
            return error.message.isEmpty ? 0 : 2
        } catch {
            FileHandle.standardError.write(Data("parse-import: \(error)\n".utf8))
            return 2
        }
        do {
            let objects = try ExportFile.objects(at: options.file)
            let importer = Importer(options: options, progress: Progress(total: objects.count))
            let outcome = try await importer.run(objects)
            print("parse-import: \(outcome.imported) of \(objects.count) objects imported into \(options.className)"
                  + (outcome.failures.isEmpty ? "" : ", \(outcome.failures.count) failed"))
            for failure in outcome.failures.prefix(20) { print("  \(failure)") }
            return outcome.failures.isEmpty ? 0 : 1
        } catch {
            FileHandle.standardError.write(Data("parse-import: \(error)\n".utf8))
            return 1
        }
    }
}
