import Foundation

exit(await VoteConsumerCommand.main(Array(CommandLine.arguments.dropFirst())))
