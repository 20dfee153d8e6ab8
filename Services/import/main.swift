import Foundation

// parse-import: loads a Parse JSON export into a class through the REST API (POST /batch).
exit(await ImportCommand.main(Array(CommandLine.arguments.dropFirst())))
