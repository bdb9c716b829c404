// Every JCCL kernel compiled for the host, registered by name with the CPU emulator (see emu_driver.cpp).
#include "jccl_kernels.cuh"

#define JCCL_EMU_SUM(T, TN) JCCL_REDUCE_KERNELS(T, TN, sum, true)
#define JCCL_EMU_ANY(T, TN) JCCL_REDUCE_KERNELS(T, TN, any, false)
JCCL_FOR_EACH_TYPE(JCCL_EMU_SUM)
JCCL_FOR_EACH_TYPE(JCCL_EMU_ANY)
JCCL_COPY_KERNELS()
