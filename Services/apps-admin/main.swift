import Foundation

// parse-apps: the app registry's API (`/admin/apps`) from the command line, for compose's one-off container and
// `deploy/stack app`.
exit(await AppsCommand.main(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
