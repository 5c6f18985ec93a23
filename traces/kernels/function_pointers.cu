// Function pointers, virtual functions and tables of pointers in __device__ initializers.
// Each thread picks one of three transfer functions from a __device__ table by i % 3 (so a warp's
// lanes diverge three ways at the indirect call), adds a bias read through a table of pointers to
// __device__ variables (nvcc writes its initializer as generic(bias_even), generic(bias_odd)+4),
// then asks one of three objects built in its local memory for their area through a virtual call
// (a load of the object's virtual table pointer, a load of the entry, an indirect call).
typedef float (*transfer)(float);
__device__ float twice(float x) { return 2.0f * x; }
__device__ float square(float x) { return x * x; }
__device__ float negate(float x) { return -x; }
__device__ transfer transfers[3] = {twice, square, negate};

__device__ float bias_even = 0.5f;
__device__ float bias_odd[2] = {0.0f, 0.25f};
__device__ const float* biases[2] = {&bias_even, bias_odd + 1};

struct Shape {
  float side;
  __device__ explicit Shape(float s) : side(s) {}
  __device__ virtual float area() const { return 0.0f; }
};
struct Square : Shape {
  __device__ explicit Square(float s) : Shape(s) {}
  __device__ float area() const override { return side * side; }
};
struct Triangle : Shape {
  __device__ explicit Triangle(float s) : Shape(s) {}
  __device__ float area() const override { return 0.5f * side * side; }
};

extern "C" __global__ void polymorphic(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = in[i];
  float v = transfers[i % 3](x) + *biases[i & 1];
  Shape none(x);
  Square square_shape(x);
  Triangle triangle(x);
  const Shape* s = i % 5 == 0 ? &none : (i & 2) ? static_cast<const Shape*>(&square_shape) : &triangle;
  out[i] = v + s->area();
}
