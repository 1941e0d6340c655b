// The few cuBLAS calls Lab 4's benchmark makes, for the emulator: the reference SGEMM it shows for scale,
// computed on the CPU in plain fp32. Only the column-major, non-transposed case the benchmark uses.
#include <cublas_v2.h>

#include <vector>

struct cublasContext {};

extern "C" {

cublasStatus_t cublasCreate_v2(cublasHandle_t* handle)
{
    *handle = new cublasContext;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)
{
    delete handle;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetMathMode(cublasHandle_t, cublasMath_t) { return CUBLAS_STATUS_SUCCESS; }

const char* cublasGetStatusString(cublasStatus_t status)
{
    return status == CUBLAS_STATUS_SUCCESS ? "CUBLAS_STATUS_SUCCESS" : "CUBLAS_STATUS_NOT_SUPPORTED (cml_emu)";
}

// C = alpha A B + beta C, column-major: A is m x k (lda), B is k x n (ldb), C is m x n (ldc).
cublasStatus_t cublasSgemm_v2(cublasHandle_t, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                              int k, const float* alpha, const float* a, int lda, const float* b, int ldb,
                              const float* beta, float* c, int ldc)
{
    if (transa != CUBLAS_OP_N || transb != CUBLAS_OP_N) return CUBLAS_STATUS_NOT_SUPPORTED;
    std::vector<float> column(std::size_t(m > 0 ? m : 0));
    for (int j = 0; j < n; ++j) {
        std::fill(column.begin(), column.end(), 0.0f);
        for (int p = 0; p < k; ++p) {
            const float bpj = b[std::size_t(j) * ldb + p];
            const float* ap = a + std::size_t(p) * lda;
            for (int i = 0; i < m; ++i) column[std::size_t(i)] += ap[i] * bpj;
        }
        float* cj = c + std::size_t(j) * ldc;
        for (int i = 0; i < m; ++i)
            cj[i] = *alpha * column[std::size_t(i)] + (*beta == 0.0f ? 0.0f : *beta * cj[i]);
    }
    return CUBLAS_STATUS_SUCCESS;
}

}  // extern "C"
