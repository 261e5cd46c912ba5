#include "synth/accuracy_dump.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <vector>

#include "core/atomic_write.h"
#include "synth/rng.h"

namespace trainscope::synth {
namespace {

namespace fs = std::filesystem;

struct Tensor {
  std::vector<int64_t> shape;
  std::vector<float> v;
  std::vector<int64_t> ids;  // an int64 tensor when set
  int64_t rows() const { return shape[0]; }
  int64_t cols() const { return shape.size() > 1 ? shape[1] : 1; }
};

Tensor Zeros(int64_t rows, int64_t cols) {
  Tensor t;
  t.shape = {rows, cols};
  t.v.assign(static_cast<size_t>(rows * cols), 0.0F);
  return t;
}

std::string NpyBytes(const Tensor& t) {
  std::string shape;
  for (const int64_t d : t.shape) shape += fmt::format("{}, ", d);
  if (t.shape.size() > 1) shape.resize(shape.size() - 2);
  const std::string descr = t.ids.empty() ? "<f4" : "<i8";
  std::string dict =
      fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", descr,
                  t.shape.size() == 1 ? shape.substr(0, shape.size() - 1) : shape);
  // Pad so magic + version + length + dict + '\n' is a multiple of 64 (as numpy does).
  while ((10 + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(dict.size() & 0xFF);
  out += static_cast<char>(dict.size() >> 8);
  out += dict;
  const size_t n = t.ids.empty() ? t.v.size() * 4 : t.ids.size() * 8;
  const size_t at = out.size();
  out.resize(at + n);
  if (t.ids.empty()) {
    std::memcpy(out.data() + at, t.v.data(), n);
  } else {
    std::memcpy(out.data() + at, t.ids.data(), n);
  }
  return out;
}

// Whole or not at all, and never through a link (core/atomic_write.h).
Status WriteBytes(const fs::path& path, std::string_view bytes) {
  return WriteFileAtomically(path.string(), bytes);
}

// Python's json writes NaN and Infinity as bare tokens; msprobe's dump.json
// inherits them.
std::string JsonNumber(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  return fmt::format("{}", x);
}

// One side's msprobe dump and plain folder.
class Dumper {
 public:
  Dumper(fs::path msprobe, fs::path folder, bool tensors)
      : msprobe_(std::move(msprobe)), folder_(std::move(folder)), tensors_(tensors) {}

  Status Start() {
    std::error_code ec;
    fs::create_directories(msprobe_ / "dump_tensor_data", ec);
    fs::create_directories(folder_, ec);
    if (ec) return IoError(fmt::format("{}: {}", msprobe_.string(), ec.message()));
    return Status::Ok();
  }

  // Records one call; returns its msprobe name ("Functional.linear.3.forward").
  Result<std::string> Call(const std::string& api, const std::string& module,
                           const std::vector<const Tensor*>& inputs,
                           const std::vector<const Tensor*>& outputs) {
    const std::string op = fmt::format("{}.{}.forward", api, counters_[api]++);
    std::string entry = fmt::format("  \"{}\": {{\n   \"input_args\": [", op);
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::string item;
      TS_ASSIGN_OR_RETURN(item, Item(fmt::format("{}.input.{}", op, i), *inputs[i]));
      entry += (i ? "," : "") + item;
    }
    entry += "],\n   \"input_kwargs\": {},\n   \"output\": [";
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::string item;
      TS_ASSIGN_OR_RETURN(item, Item(fmt::format("{}.output.{}", op, i), *outputs[i]));
      entry += (i ? "," : "") + item;
    }
    entry += "]\n  }";
    entries_.push_back(std::move(entry));
    if (!module.empty()) construct_.emplace_back(op, module);
    return op;
  }

  Status Finish() {
    std::string json = fmt::format(
        "{{\n \"task\": \"{}\",\n \"level\": \"mix\",\n \"framework\": \"pytorch\",\n "
        "\"dump_data_dir\": {},\n \"data\": {{\n",
        tensors_ ? "tensor" : "statistics", tensors_ ? "\"dump_tensor_data\"" : "null");
    for (size_t i = 0; i < entries_.size(); ++i)
      json += entries_[i] + (i + 1 < entries_.size() ? ",\n" : "\n");
    json += " }\n}\n";
    TS_RETURN_IF_ERROR(WriteBytes(msprobe_ / "dump.json", json));
    std::string construct = "{\n";
    for (size_t i = 0; i < construct_.size(); ++i) {
      construct += fmt::format("  \"{}\": \"{}\"{}\n", construct_[i].first, construct_[i].second,
                               i + 1 < construct_.size() ? "," : "");
    }
    construct += "}\n";
    return WriteBytes(msprobe_ / "construct.json", construct);
  }

  int64_t tensors() const { return count_; }
  int64_t bytes() const { return bytes_; }

 private:
  Result<std::string> Item(const std::string& name, const Tensor& t) {
    double max = -std::numeric_limits<double>::infinity(), min = -max, sum = 0, sq = 0;
    bool nan = false;
    const size_t n = t.ids.empty() ? t.v.size() : t.ids.size();
    for (size_t i = 0; i < n; ++i) {
      const double x = t.ids.empty() ? static_cast<double>(t.v[i]) : static_cast<double>(t.ids[i]);
      nan = nan || std::isnan(x);
      max = std::max(max, x);
      min = std::min(min, x);
      sum += x;
      sq += x * x;
    }
    const double quiet = std::numeric_limits<double>::quiet_NaN();
    std::string shape;
    for (const int64_t d : t.shape) shape += fmt::format("{}{}", shape.empty() ? "" : ", ", d);
    const std::string bytes = NpyBytes(t);
    if (tensors_) {
      TS_RETURN_IF_ERROR(WriteBytes(msprobe_ / "dump_tensor_data" / (name + ".npy"), bytes));
    }
    TS_RETURN_IF_ERROR(WriteBytes(folder_ / fmt::format("{:04d}_{}.npy", count_, name), bytes));
    ++count_;
    bytes_ += static_cast<int64_t>(bytes.size()) * (tensors_ ? 2 : 1);
    return fmt::format(
        "\n    {{\"type\": \"torch.Tensor\", \"dtype\": \"{}\", \"shape\": [{}], \"Max\": {}, "
        "\"Min\": {}, \"Mean\": {}, \"Norm\": {}, \"requires_grad\": false, \"data_name\": "
        "\"{}.npy\"}}",
        t.ids.empty() ? "torch.float32" : "torch.int64", shape, JsonNumber(nan ? quiet : max),
        JsonNumber(nan ? quiet : min), JsonNumber(sum / static_cast<double>(n)),
        JsonNumber(std::sqrt(sq)), name);
  }

  fs::path msprobe_, folder_;
  bool tensors_;
  std::map<std::string, int> counters_;
  std::vector<std::string> entries_;
  std::vector<std::pair<std::string, std::string>> construct_;
  int64_t count_ = 0, bytes_ = 0;
};

float RoundToBf16(float x) {
  uint32_t bits = std::bit_cast<uint32_t>(x);
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  return std::bit_cast<float>(bits & 0xFFFF0000u);
}

struct Weights {
  Tensor embedding;
  struct Layer {
    Tensor in_norm, post_norm, q, k, v, o, gate, up, down;
  };
  std::vector<Layer> layers;
  Tensor final_norm, lm_head;
};

Tensor Random(Rng& rng, int64_t rows, int64_t cols, double scale, double offset = 0) {
  Tensor t = Zeros(rows, cols);
  for (float& x : t.v) x = static_cast<float>(offset + scale * (2 * rng.Uniform() - 1));
  return t;
}

Weights MakeWeights(const AccuracyDumpOptions& o) {
  Rng rng(o.seed);
  Weights w;
  w.embedding = Random(rng, o.vocab, o.hidden, 1.0);
  const double h = std::sqrt(3.0 / o.hidden), f = std::sqrt(3.0 / o.ffn);
  for (int l = 0; l < o.layers; ++l) {
    Weights::Layer layer;
    layer.in_norm = Random(rng, 1, o.hidden, 0.1, 1.0);
    layer.post_norm = Random(rng, 1, o.hidden, 0.1, 1.0);
    layer.q = Random(rng, o.hidden, o.hidden, h);
    layer.k = Random(rng, o.hidden, o.hidden, h);
    layer.v = Random(rng, o.hidden, o.hidden, h);
    layer.o = Random(rng, o.hidden, o.hidden, h);
    layer.gate = Random(rng, o.ffn, o.hidden, h);
    layer.up = Random(rng, o.ffn, o.hidden, h);
    layer.down = Random(rng, o.hidden, o.ffn, f);
    w.layers.push_back(std::move(layer));
  }
  w.final_norm = Random(rng, 1, o.hidden, 0.1, 1.0);
  w.lm_head = Random(rng, o.vocab, o.hidden, h);
  return w;
}

Tensor Linear(const Tensor& x, const Tensor& w) {  // x [s, in], w [out, in]
  Tensor y = Zeros(x.rows(), w.rows());
  for (int64_t s = 0; s < x.rows(); ++s) {
    for (int64_t o = 0; o < w.rows(); ++o) {
      double acc = 0;
      for (int64_t i = 0; i < x.cols(); ++i) {
        acc += static_cast<double>(x.v[s * x.cols() + i]) * w.v[o * w.cols() + i];
      }
      y.v[s * y.cols() + o] = static_cast<float>(acc);
    }
  }
  return y;
}

template <typename Fn>
Tensor Map(const Tensor& x, Fn fn) {
  Tensor y = x;
  for (float& v : y.v) v = static_cast<float>(fn(static_cast<double>(v)));
  return y;
}

template <typename Fn>
Tensor Zip(const Tensor& a, const Tensor& b, Fn fn) {  // b broadcasts by row or column
  Tensor y = a;
  for (int64_t r = 0; r < a.rows(); ++r) {
    for (int64_t c = 0; c < a.cols(); ++c) {
      const int64_t br = b.rows() == 1 ? 0 : r, bc = b.cols() == 1 ? 0 : c;
      y.v[r * a.cols() + c] = static_cast<float>(fn(static_cast<double>(a.v[r * a.cols() + c]),
                                                    static_cast<double>(b.v[br * b.cols() + bc])));
    }
  }
  return y;
}

class Forward {
 public:
  Forward(const AccuracyDumpOptions& o, const Weights& w, Dumper* d, bool is_new)
      : o_(o), w_(w), d_(d), is_new_(is_new) {}

  Status Run(AccuracyDumpResult* result) {
    Tensor ids;
    ids.shape = {o_.seq};
    for (int s = 0; s < o_.seq; ++s) ids.ids.push_back((s * 7 + 3) % o_.vocab);
    Tensor x = Zeros(o_.seq, o_.hidden);
    for (int s = 0; s < o_.seq; ++s) {
      for (int c = 0; c < o_.hidden; ++c)
        x.v[s * o_.hidden + c] = w_.embedding.v[ids.ids[s] * o_.hidden + c];
    }
    TS_RETURN_IF_ERROR(
        Call("Functional.embedding", "Module.embed_tokens.Embedding.forward.0", {&ids}, {&x}));
    for (int l = 0; l < o_.layers; ++l) TS_RETURN_IF_ERROR(Layer(l, &x));
    Tensor normed;
    TS_RETURN_IF_ERROR(RmsNorm("norm", x, w_.final_norm, 1e-6, false, &normed));
    Tensor logits = Linear(normed, w_.lm_head);
    TS_RETURN_IF_ERROR(
        Call("Functional.linear", "Module.lm_head.Linear.forward.0", {&normed}, {&logits}));
    if (is_new_) {
      result->planted_op = planted_op_;
      result->planted_module = planted_module_;
    }
    return Status::Ok();
  }

 private:
  Status Call(const std::string& api, const std::string& module,
              const std::vector<const Tensor*>& in, const std::vector<const Tensor*>& out) {
    Result<std::string> op = d_->Call(api, module, in, out);
    if (!op.ok()) return op.status();
    last_op_ = *op;
    return Status::Ok();
  }
  void Planted(const std::string& module) {
    planted_op_ = last_op_;
    planted_module_ = module;
  }
  static std::string ModuleName(const std::string& path, const std::string& cls) {
    return fmt::format("Module.{}.{}.forward.0", path, cls);
  }

  Status RmsNorm(const std::string& path, const Tensor& x, const Tensor& weight, double eps,
                 bool fused, Tensor* out) {
    const std::string module = ModuleName(path, "RMSNorm");
    Tensor sq = Map(x, [](double v) { return v * v; });
    Tensor ms = Zeros(x.rows(), 1);
    for (int64_t r = 0; r < x.rows(); ++r) {
      double acc = 0;
      for (int64_t c = 0; c < x.cols(); ++c) acc += sq.v[r * x.cols() + c];
      ms.v[r] = static_cast<float>(acc / static_cast<double>(x.cols()));
    }
    Tensor rs = Map(ms, [eps](double v) { return 1 / std::sqrt(v + eps); });
    Tensor xn = Zip(x, rs, [](double a, double b) { return a * b; });
    *out = Zip(xn, weight, [](double a, double b) { return a * b; });
    if (fused) return Call("NPU.npu_rms_norm", module, {&x, &weight}, {out});
    TS_RETURN_IF_ERROR(Call("Tensor.pow", module, {&x}, {&sq}));
    TS_RETURN_IF_ERROR(Call("Torch.mean", module, {&sq}, {&ms}));
    TS_RETURN_IF_ERROR(Call("Torch.rsqrt", module, {&ms}, {&rs}));
    last_rsqrt_ = last_op_;
    TS_RETURN_IF_ERROR(Call("Tensor.mul", module, {&x, &rs}, {&xn}));
    return Call("Tensor.mul", module, {&xn, &weight}, {out});
  }

  Tensor Attention(const Tensor& q, const Tensor& k, const Tensor& v) const {
    const int64_t s_len = q.rows(), hd = q.cols() / o_.heads;
    Tensor out = Zeros(s_len, q.cols());
    for (int h = 0; h < o_.heads; ++h) {
      for (int64_t i = 0; i < s_len; ++i) {
        std::vector<double> score(static_cast<size_t>(i + 1));
        double top = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j <= i; ++j) {
          double dot = 0;
          for (int64_t c = 0; c < hd; ++c)
            dot += static_cast<double>(q.v[i * q.cols() + h * hd + c]) *
                   k.v[j * k.cols() + h * hd + c];
          score[j] = dot / std::sqrt(static_cast<double>(hd));
          top = std::max(top, score[j]);
        }
        double total = 0;
        for (double& sc : score) total += (sc = std::exp(sc - top));
        for (int64_t c = 0; c < hd; ++c) {
          double acc = 0;
          for (int64_t j = 0; j <= i; ++j) acc += score[j] / total * v.v[j * v.cols() + h * hd + c];
          out.v[i * out.cols() + h * hd + c] = static_cast<float>(acc);
        }
      }
    }
    return out;
  }

  Status Layer(int l, Tensor* x) {
    const Weights::Layer& w = w_.layers[l];
    const std::string p = fmt::format("layers.{}", l);
    const bool here = is_new_ && l == o_.plant_layer;
    Tensor h;
    const bool fused = here && o_.plant == AccuracyPlant::kFused;
    TS_RETURN_IF_ERROR(RmsNorm(p + ".input_layernorm", *x, w.in_norm, 1e-6, fused, &h));
    if (fused) Planted(p + ".input_layernorm");
    const std::string attn = p + ".self_attn";
    Tensor q = Linear(h, w.q);
    if (here && o_.plant == AccuracyPlant::kBf16Rounding) {
      for (float& v : q.v) v = RoundToBf16(v);
    }
    TS_RETURN_IF_ERROR(
        Call("Functional.linear", ModuleName(attn + ".q_proj", "Linear"), {&h}, {&q}));
    if (here && o_.plant == AccuracyPlant::kBf16Rounding) Planted(attn + ".q_proj");
    Tensor k = Linear(h, w.k);
    TS_RETURN_IF_ERROR(
        Call("Functional.linear", ModuleName(attn + ".k_proj", "Linear"), {&h}, {&k}));
    Tensor v = Linear(h, w.v);
    TS_RETURN_IF_ERROR(
        Call("Functional.linear", ModuleName(attn + ".v_proj", "Linear"), {&h}, {&v}));
    Tensor a = Attention(q, k, v);
    TS_RETURN_IF_ERROR(Call("Functional.scaled_dot_product_attention",
                            ModuleName(attn, "Attention"), {&q, &k, &v}, {&a}));
    Tensor o = Linear(a, w.o);
    TS_RETURN_IF_ERROR(
        Call("Functional.linear", ModuleName(attn + ".o_proj", "Linear"), {&a}, {&o}));
    Tensor r1 = Zip(*x, o, [](double m, double n) { return m + n; });
    TS_RETURN_IF_ERROR(Call("Tensor.add", ModuleName(p, "DecoderLayer"), {x, &o}, {&r1}));
    Tensor h2;
    const double eps = here && o_.plant == AccuracyPlant::kWrongEpsilon ? 1e-2 : 1e-6;
    TS_RETURN_IF_ERROR(RmsNorm(p + ".post_attention_layernorm", r1, w.post_norm, eps, false, &h2));
    if (here && o_.plant == AccuracyPlant::kWrongEpsilon) {
      // The wrong epsilon shows first in the rsqrt that adds it.
      planted_op_ = last_rsqrt_;
      planted_module_ = p + ".post_attention_layernorm";
    }
    const std::string mlp = p + ".mlp";
    Tensor g = Linear(h2, w.gate);
    TS_RETURN_IF_ERROR(
        Call("Functional.linear", ModuleName(mlp + ".gate_proj", "Linear"), {&h2}, {&g}));
    Tensor u = Linear(h2, w.up);
    TS_RETURN_IF_ERROR(
        Call("Functional.linear", ModuleName(mlp + ".up_proj", "Linear"), {&h2}, {&u}));
    Tensor act = Map(g, [](double z) { return z / (1 + std::exp(-z)); });
    if (here && o_.plant == AccuracyPlant::kNan)
      act.v[3 * act.cols() + 5] = std::numeric_limits<float>::quiet_NaN();
    TS_RETURN_IF_ERROR(Call("Functional.silu", ModuleName(mlp + ".act_fn", "SiLU"), {&g}, {&act}));
    if (here && o_.plant == AccuracyPlant::kNan) Planted(mlp + ".act_fn");
    Tensor gated = Zip(act, u, [](double m, double n) { return m * n; });
    TS_RETURN_IF_ERROR(Call("Tensor.mul", ModuleName(mlp, "MLP"), {&act, &u}, {&gated}));
    Tensor down = Linear(gated, w.down);
    TS_RETURN_IF_ERROR(
        Call("Functional.linear", ModuleName(mlp + ".down_proj", "Linear"), {&gated}, {&down}));
    Tensor r2 = Zip(r1, down, [](double m, double n) { return m + n; });
    TS_RETURN_IF_ERROR(Call("Tensor.add", ModuleName(p, "DecoderLayer"), {&r1, &down}, {&r2}));
    *x = std::move(r2);
    return Status::Ok();
  }

  const AccuracyDumpOptions& o_;
  const Weights& w_;
  Dumper* d_;
  bool is_new_;
  std::string last_op_, last_rsqrt_, planted_op_, planted_module_;
};

}  // namespace

Status ParseAccuracyPlant(const std::string& name, AccuracyPlant* plant) {
  static const std::map<std::string, AccuracyPlant> kNames = {
      {"none", AccuracyPlant::kNone},
      {"bf16", AccuracyPlant::kBf16Rounding},
      {"epsilon", AccuracyPlant::kWrongEpsilon},
      {"nan", AccuracyPlant::kNan},
      {"fused", AccuracyPlant::kFused}};
  auto it = kNames.find(name);
  if (it == kNames.end()) {
    return UsageError(
        fmt::format("unknown plant '{}'\nhint: none, bf16, epsilon, nan or fused", name));
  }
  *plant = it->second;
  return Status::Ok();
}

Result<AccuracyDumpResult> WriteAccuracyDumps(const std::string& out,
                                              const AccuracyDumpOptions& options) {
  if (options.hidden % options.heads != 0 || options.seq < 6 || options.ffn < 6 ||
      options.plant_layer >= options.layers) {
    return UsageError(
        "accuracy dump: hidden must divide by heads, seq and ffn >= 6, plant layer < layers");
  }
  const Weights weights = MakeWeights(options);
  AccuracyDumpResult result;
  for (const bool is_new : {false, true}) {
    const std::string side = is_new ? "new" : "base";
    Dumper dumper(fs::path(out) / side, fs::path(out) / (side + "_npy"), options.tensors);
    TS_RETURN_IF_ERROR(dumper.Start());
    Forward forward(options, weights, &dumper, is_new);
    TS_RETURN_IF_ERROR(forward.Run(&result));
    TS_RETURN_IF_ERROR(dumper.Finish());
    if (!is_new) result.tensors = dumper.tensors();
    result.bytes += dumper.bytes();
  }
  return result;
}

Result<int64_t> WriteAccuracyBenchDumps(const std::string& out, int files, int64_t elements,
                                        uint64_t seed) {
  Rng rng(seed);
  int64_t bytes = 0;
  Tensor t;
  t.shape = {elements};
  t.v.resize(static_cast<size_t>(elements));
  for (int f = 0; f < files; ++f) {
    for (float& x : t.v) x = static_cast<float>(2 * rng.Uniform() - 1);
    for (const bool is_new : {false, true}) {
      const fs::path dir = fs::path(out) / (is_new ? "new" : "base");
      std::error_code ec;
      fs::create_directories(dir, ec);
      Tensor side = t;
      if (is_new) {
        for (float& x : side.v) x = std::nextafter(x, rng.Uniform() < 0.5 ? -2.0F : 2.0F);
      }
      const std::string npy = NpyBytes(side);
      TS_RETURN_IF_ERROR(WriteBytes(dir / fmt::format("layer{:02d}/activation.npy", f), npy));
      bytes += static_cast<int64_t>(npy.size());
    }
  }
  return bytes;
}

}  // namespace trainscope::synth
