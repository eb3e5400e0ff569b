from tvmc.cli.app import main

main()
