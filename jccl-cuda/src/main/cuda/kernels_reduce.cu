// Reduction kernels of one element type and operation class, selected by build-ptx.sh with
// -DJCCL_TYPE=<C type> -DJCCL_TYPE_NAME=<suffix> -DJCCL_SUMONLY=<1: sum | 0: any>; one PTX module each
// (reduce_<suffix>_<sum|any>.ptx), loaded by the driver only when a call needs it.
#include "jccl_kernels.cuh"

#if !defined(JCCL_TYPE) || !defined(JCCL_TYPE_NAME) || !defined(JCCL_SUMONLY)
#error "compile with -DJCCL_TYPE=<C type> -DJCCL_TYPE_NAME=<suffix> -DJCCL_SUMONLY=0|1 (see build-ptx.sh)"
#endif

#if JCCL_SUMONLY
JCCL_REDUCE_KERNELS(JCCL_TYPE, JCCL_TYPE_NAME, sum, true)
#else
JCCL_REDUCE_KERNELS(JCCL_TYPE, JCCL_TYPE_NAME, any, false)
#endif
