import Foundation

exit(DeadLettersCommand.main(Array(CommandLine.arguments.dropFirst())))
