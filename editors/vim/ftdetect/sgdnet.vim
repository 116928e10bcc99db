""" Vim file-type detection for sgdnet models: *.sgdnet files are of type `sgdnet`.
autocmd BufRead,BufNewFile *.sgdnet setfiletype sgdnet
