import ChatTerminal
import Foundation

let code = await ChatTool.main(
  arguments: Array(CommandLine.arguments.dropFirst()),
  environment: ProcessInfo.processInfo.environment)
exit(code.rawValue)
