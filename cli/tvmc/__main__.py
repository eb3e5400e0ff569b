from tvmc.cli.entry import main

main()
