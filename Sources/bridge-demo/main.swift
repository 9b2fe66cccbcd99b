import Foundation

Console.prepare()
let status = await BridgeDemo.run(arguments: Array(CommandLine.arguments.dropFirst()))
exit(Console.exitStatus(after: status))
