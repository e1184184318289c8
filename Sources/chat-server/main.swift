import ChatServerTool
import Foundation

let code = await ServerCommand.main(
  arguments: Array(CommandLine.arguments.dropFirst()),
  environment: ProcessInfo.processInfo.environment)
exit(code)
