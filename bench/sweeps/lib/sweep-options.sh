# Sourced by compare-openmpi.sh and oversubscribe-ratio.sh: the size-sweep options both take, with nccl-tests' names.
# sweep_option "$@" sets np, minb, maxb, factor, iters or warm from $2 when $1 is -np, -b, -e, -f, -n or -w and
# returns 0 (the caller then shifts 2); it returns 1 for any other option.
sweep_option() {
  case "$1" in
    -np) np=$2 ;;
    -b) minb=$2 ;;
    -e) maxb=$2 ;;
    -f) factor=$2 ;;
    -n) iters=$2 ;;
    -w) warm=$2 ;;
    *) return 1 ;;
  esac
}
