// Eigen maps over the CPU backend's row-major buffers.
#pragma once

#include <Eigen/Core>

namespace gp::cpu {

template <typename T>
using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstMat = Eigen::Map<const RowMajor<T>>;
template <typename T>
using Mat = Eigen::Map<RowMajor<T>>;
template <typename T>
using ConstRow = Eigen::Map<const Eigen::Matrix<T, 1, Eigen::Dynamic>>;
template <typename T>
using Row = Eigen::Map<Eigen::Matrix<T, 1, Eigen::Dynamic>>;

}  // namespace gp::cpu
