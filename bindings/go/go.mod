module tessera.dev/tessera

go 1.19
