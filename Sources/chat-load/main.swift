import ChatLoad

await LoadCommand.main()
