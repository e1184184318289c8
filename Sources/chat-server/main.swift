import ChatServerTool

await ServerCommand.main()
