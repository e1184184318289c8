import ChatLoad
import Foundation

exit(LoadCommand.main(arguments: Array(CommandLine.arguments.dropFirst())))
