import Foundation

exit(await BridgeDemo.run(arguments: Array(CommandLine.arguments.dropFirst())))
