# kpipe.fish - fish completion for kpipe: commands, options, variant names,
# formats, targets, and files.  Installed as
# share/fish/vendor_completions.d/kpipe.fish; tests/cli/install.sh checks it
# against `kpipe --help`.

set -l commands analyze rewrite tune validate lsp version help
set -l variants auto cp-async register register-ca register-2bar bulk tma
set -l archs sm_70 sm_72 sm_75 sm_80 sm_86 sm_87 sm_89 sm_90 sm_100 sm_103 sm_120 sm_121
set -l files analyze rewrite tune validate

complete -c kpipe -f
complete -c kpipe -n "not __fish_seen_subcommand_from $commands" -a analyze -d 'report every tiled K-loop, its budget and eligibility'
complete -c kpipe -n "not __fish_seen_subcommand_from $commands" -a rewrite -d 'pipeline the eligible K-loops'
complete -c kpipe -n "not __fish_seen_subcommand_from $commands" -a tune -d 'time every legal variant on the GPU, keep the fastest'
complete -c kpipe -n "not __fish_seen_subcommand_from $commands" -a validate -d 'prove a rewrite: resources, SASS, GPU run, timing'
complete -c kpipe -n "not __fish_seen_subcommand_from $commands" -a lsp -d 'language server for editors (LSP over stdin/stdout)'
complete -c kpipe -n "not __fish_seen_subcommand_from $commands" -a version -d 'print the versions of kpipe, libclang and CUDA'
complete -c kpipe -n "not __fish_seen_subcommand_from $commands" -a help -d 'show the help'
complete -c kpipe -n "not __fish_seen_subcommand_from $commands" -l version -d 'print the versions'
complete -c kpipe -l help -d 'show the help'

# sources and directories
complete -c kpipe -n "__fish_seen_subcommand_from $files" -F

# every command that reads sources
set -l src "__fish_seen_subcommand_from $files"
complete -c kpipe -n $src -x -l arch -a "$archs" -d 'target architecture'
complete -c kpipe -n $src -x -l kernel -d 'only this kernel'
complete -c kpipe -n $src -x -l cuda-path -a '(__fish_complete_directories)' -d 'CUDA toolkit'
complete -c kpipe -n $src -x -s p -a '(__fish_complete_directories)' -d 'directory of compile_commands.json'
complete -c kpipe -n $src -x -l threads -d 'threads per block'
complete -c kpipe -n $src -r -l spec -d 'launch description (JSON)'
complete -c kpipe -n $src -x -l header-filter -d 'kernels in the headers whose path matches (POSIX regex)'
complete -c kpipe -n $src -x -s I -a '(__fish_complete_directories)' -d 'include directory for the parser'
complete -c kpipe -n $src -x -s D -d 'macro for the parser'
complete -c kpipe -n $src -x -s U -d 'undefine a macro'
complete -c kpipe -n $src -x -l extra-arg -d 'argument for the parser'
complete -c kpipe -n $src -s v -l verbose -d 'say what was chosen and why'
complete -c kpipe -n "__fish_seen_subcommand_from rewrite analyze" -x -l format -a 'text json sarif' -d 'report format'
complete -c kpipe -n "__fish_seen_subcommand_from validate" -x -l format -a 'text json' -d 'report format'

# rewrite and tune
set -l rt "__fish_seen_subcommand_from rewrite tune"
complete -c kpipe -n $rt -r -s o -l output -d 'write the result to OUT'
complete -c kpipe -n $rt -s i -l in-place -d 'rewrite the input files'
complete -c kpipe -n $rt -x -l variant -a "$variants" -d 'pipelining variant'
# rewrite, tune and validate
set -l rtv "__fish_seen_subcommand_from rewrite tune validate"
complete -c kpipe -n $rtv -x -l sizes -a 'tiny small target' -d 'sizes of the launch description'
complete -c kpipe -n $rtv -x -l gpu-dir -a '(__fish_complete_directories)' -d 'build the GPU harness here'
complete -c kpipe -n $rtv -l sanitize -d 'run compute-sanitizer (default)'
complete -c kpipe -n $rtv -l no-sanitize -d 'skip compute-sanitizer'
complete -c kpipe -n "__fish_seen_subcommand_from tune validate" -l profile -d 'Nsight Compute on both kernels'

# rewrite alone
set -l rw "__fish_seen_subcommand_from rewrite"
complete -c kpipe -n $rw -x -l backup-suffix -d 'keep a copy of the input with this suffix'
complete -c kpipe -n $rw -l diff -d 'print a unified diff'
complete -c kpipe -n $rw -l dry-run -d 'write nothing; exit 1 when something would change'
complete -c kpipe -n $rw -x -l stages -a '2 3 4 5 6 7 8' -d 'pipeline depth'
complete -c kpipe -n $rw -r -l assume-filename -d 'name of the buffer read from stdin'
complete -c kpipe -n $rw -r -l export-fixes -d 'write clang-tidy fixes (YAML)'
complete -c kpipe -n $rw -l validate -d 'then run kpipe validate'
complete -c kpipe -n $rw -x -l out-dir -a '(__fish_complete_directories)' -d 'write the rewritten files under OUT'
complete -c kpipe -n "__fish_seen_subcommand_from rewrite analyze" -x -s j -l jobs -d 'files at a time'
complete -c kpipe -n "__fish_seen_subcommand_from rewrite analyze" -x -l exclude -d 'skip matching files and directories'
complete -c kpipe -n $rw -x -l shard -d 'only the files I, I+N, ... (I/N)'
complete -c kpipe -n $rw -l no-pch -d 'parse from scratch, no precompiled CUDA header'
complete -c kpipe -n $rw -l no-ptxas -d 'auto decides from the source alone (no nvcc run)'
complete -c kpipe -n $rw -o Werror -d 'exit 1 when a warning was printed (a loop refused)'
complete -c kpipe -n $rw -x -l timeout -d 'give up on a file after S seconds'
complete -c kpipe -n $rw -l no-comment -d "leave out kpipe's explanatory comments"
complete -c kpipe -n $rw -l no-verify -d 'do not run the rewrite against the original on the CPU emulator'
complete -c kpipe -n $rw -l require-verify -d 'refuse a rewrite that cannot be verified'
complete -c kpipe -n $rw -l format-style -x -a "file none llvm google chromium mozilla webkit" -d "format the lines kpipe writes with clang-format"
complete -c kpipe -n $rw -l pad -d 'pad shared arrays against bank conflicts, then pipeline'
complete -c kpipe -n $rw -l pad-only -d 'pad shared arrays against bank conflicts only'
complete -c kpipe -n $rw -l no-pad -d 'with --variant auto: pad nothing'
complete -c kpipe -n $rw -l swizzle -d 'with --pad: XOR-swizzle conflicted columns instead of padding rows'
complete -c kpipe -n "__fish_seen_subcommand_from rewrite analyze" -x -l block -d 'block shape X,Y,Z for the bank analysis'
complete -c kpipe -n $rw -l sarif-all -d 'with --format sarif: the pipelined loops too'
