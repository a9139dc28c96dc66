// cases/ and the selection of harness/runner: coverage of the op catalog, the stable id format,
// valid OpCalls, the elementwise shape sweep, and --op/--dtype/--filter/--shard selection with
// its usage errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "cases/registry.hpp"
#include "core/error.hpp"
#include "harness/run/runner.hpp"

namespace gp {
namespace {

using ::testing::HasSubstr;

// BUG (reported, then in cases/chosen.cpp): ste_hardtanh_gate copies its dtypes from a CaseDecl that was
// already moved into the list, so it declares no dtype and has no case at all.
TEST(Cases, EveryOpHasACase) {
  std::map<OpKind, int> count;
  for (const Case& c : all_cases()) ++count[c.decl.op];
  for (OpKind k : all_ops()) EXPECT_GT(count[k], 0) << op_name(k) << " has no case";
}

TEST(Cases, IdsAreUniqueFindableAndFollowThePattern) {
  const std::regex pattern(R"(^([a-z0-9_]+)\((.*,)?shape=([^,()]+),dtype=(f16|bf16|f32|f64)\)$)");
  std::set<std::string> seen;
  for (const Case& c : all_cases()) {
    EXPECT_TRUE(seen.insert(c.id).second) << "duplicate " << c.id;
    EXPECT_EQ(find_case(c.id), &c) << c.id;
    std::smatch m;
    ASSERT_TRUE(std::regex_match(c.id, m, pattern)) << c.id;
    EXPECT_EQ(m[1].str(), op_name(c.decl.op)) << c.id;
    std::string shapes;
    for (const auto& in : c.decl.inputs) shapes += (shapes.empty() ? "" : "|") + in.shape.to_string();
    // An optimizer step's inputs all have the parameter's shape, which its id names once.
    if (op_family(c.decl.op) == OpFamily::optimizer) {
      for (const auto& in : c.decl.inputs) EXPECT_EQ(in.shape, c.decl.inputs[0].shape) << c.id;
      shapes = c.decl.inputs[0].shape.to_string();
    }
    EXPECT_EQ(m[3].str(), shapes) << c.id;
    EXPECT_EQ(m[4].str(), dtype_name(c.dtype)) << c.id;
    const std::string attrs = attrs_to_string(c.decl.op, c.decl.attrs);
    if (!attrs.empty()) {
      EXPECT_THAT(m[2].str(), ::testing::StartsWith(attrs + ",")) << c.id;
    }
    if (!c.decl.variant.empty()) {
      EXPECT_THAT(m[2].str(), HasSubstr(c.decl.variant + ",")) << c.id;
    }
  }
  EXPECT_EQ(find_case("exp(shape=7,dtype=f8)"), nullptr);
  EXPECT_NE(find_case("exp(shape=7,dtype=f32)"), nullptr);
}

TEST(Cases, EveryOpCallIsValidAndMatchesItsDeclaration) {
  for (const Case& c : all_cases()) {
    const OpCall& call = c.call;
    EXPECT_EQ(call.kind, c.decl.op) << c.id;
    EXPECT_EQ(call.dtype, c.dtype) << c.id;
    EXPECT_EQ(call.case_id, c.id);
    EXPECT_TRUE(std::count(c.decl.dtypes.begin(), c.decl.dtypes.end(), c.dtype)) << c.id;
    EXPECT_TRUE(is_float(c.dtype)) << c.id;
    ASSERT_EQ(call.input_shapes.size(), c.decl.inputs.size()) << c.id;
    ASSERT_EQ(call.input_dtypes.size(), c.decl.inputs.size()) << c.id;
    const int arity = op_arity(c.decl.op);
    if (arity >= 0) {
      EXPECT_EQ(static_cast<int>(c.decl.inputs.size()), arity) << c.id;
    } else {
      EXPECT_GE(c.decl.inputs.size(), 2u) << c.id;
    }
    std::vector<Shape> shapes;
    for (std::size_t k = 0; k < c.decl.inputs.size(); ++k) {
      const InputSpec& in = c.decl.inputs[k];
      shapes.push_back(in.shape);
      EXPECT_EQ(call.input_shapes[k], in.shape) << c.id;
      const bool class_index = in.domain.kind == Domain::Kind::class_index;
      EXPECT_EQ(call.input_dtypes[k], class_index ? DType::i32 : c.dtype) << c.id << " input " << k;
      if (class_index) {
        EXPECT_GT(in.domain.classes, 0) << c.id;
      } else if (in.domain.kind == Domain::Kind::constant) {
        EXPECT_EQ(in.domain.lo, in.domain.hi) << c.id;
      } else {
        EXPECT_LT(in.domain.lo, in.domain.hi) << c.id;
      }
    }
    OpCall again;
    EXPECT_NO_THROW(again = make_call(c.decl.op, c.decl.attrs, c.dtype, shapes, c.id)) << c.id;
    EXPECT_EQ(again.output_shape, call.output_shape) << c.id;
    // An empty output only from an empty input (cases/edges.cpp), never from a shape rule alone.
    if (!has_empty_input(call)) {
      EXPECT_GE(call.output_shape.numel(), 1) << c.id;
    }
  }
}

// The catalog row declares a straight-through op's surrogate: the values a backend's gradient is
// compared with, and the note the report prints. An op with an exact gradient declares none.
TEST(Catalog, StraightThroughRowsDeclareTheirSurrogate) {
  EXPECT_EQ(surrogate_gradient(OpKind::ste_round, 2.7, -0.25), -0.25);
  EXPECT_EQ(surrogate_gradient(OpKind::ste_hardtanh_gate, 0.5, 3.0), 3.0);
  EXPECT_EQ(surrogate_gradient(OpKind::ste_hardtanh_gate, -1.5, 3.0), 0.0);
  EXPECT_EQ(surrogate_gradient(OpKind::ste_hardtanh_gate, 1.0, 3.0), 0.0);
  int straight_through = 0;
  for (OpKind k : all_ops()) {
    if (!op_is_straight_through(k)) {
      EXPECT_TRUE(surrogate_note(k).empty()) << op_name(k);
      EXPECT_THROW(surrogate_gradient(k, 0.5, 1.0), Error) << op_name(k);
      continue;
    }
    ++straight_through;
    EXPECT_THAT(std::string(surrogate_note(k)), HasSubstr("straight-through")) << op_name(k);
  }
  EXPECT_EQ(straight_through, 2);
}

// One attribute list spells ids, reports and the plugin ABI's attrs_text: every key of an op's
// attributes, in the list's order, each value as ids have always spelled it.
TEST(Catalog, AttributesAreSpelledInTheListsOrder) {
  OpAttrs a;
  a.lr = 0.01;
  a.momentum = 0.9;
  a.nesterov = true;
  a.weight_decay = 1e-4;
  a.first = true;
  EXPECT_EQ(attrs_to_string(OpKind::sgd_step, a), "lr=0.01,momentum=0.9,dampening=0,nesterov=1,wd=0.0001,first=1");
  EXPECT_EQ(attrs_to_string(OpKind::adamw_step, a), "lr=0.01,beta1=0.9,beta2=0.999,eps=1e-05,wd=0.0001,step=1");
  EXPECT_EQ(attr_keys(OpKind::sgd_step), "lr, momentum, dampening, nesterov, wd, first");
  a.axis = 1;
  a.start = 2;
  a.stop = 9;
  a.step = 3;
  EXPECT_EQ(attrs_to_string(OpKind::slice, a), "axis=1,range=2:9:3");
  a.correction = 1;
  a.keepdim = true;
  EXPECT_EQ(attrs_to_string(OpKind::variance, a), "axis=1,keepdim=1,correction=1");
  a.gelu = GeluApprox::tanh;
  EXPECT_EQ(attrs_to_string(OpKind::gelu, a), "approx=tanh");
  a.staged = Staged::storage;
  EXPECT_EQ(attrs_to_string(OpKind::softmax, a), "axis=1,staged=storage");
  a.shape = {4, -1};
  EXPECT_EQ(attrs_to_string(OpKind::reshape, a), "to=" + Shape({4, -1}).to_string());
  EXPECT_EQ(attrs_to_string(OpKind::exp, a), "");
  EXPECT_EQ(attr_keys(OpKind::exp), "");
}

TEST(Cases, ElementwiseShapesForEveryUnaryOpInF32AndF64) {
  const std::vector<Shape> expected = {Shape{1}, Shape{7}, Shape{127}, Shape{16, 33}, Shape{64, 128}};
  EXPECT_EQ(elementwise_shapes(), expected);
  std::set<std::tuple<OpKind, std::string, DType>> present;
  for (const Case& c : all_cases()) present.insert({c.decl.op, c.decl.inputs[0].shape.to_string(), c.dtype});
  int unary_ops = 0;
  for (OpKind k : all_ops()) {
    if (op_family(k) != OpFamily::unary) continue;
    ++unary_ops;
    for (const Shape& s : expected)
      for (DType t : {DType::f32, DType::f64})
        EXPECT_TRUE(present.count({k, s.to_string(), t}))
            << op_name(k) << " lacks " << s.to_string() << " " << dtype_name(t);
  }
  EXPECT_GT(unary_ops, 0);  // the loop checked something
}

std::vector<std::string> ids(const std::vector<const Case*>& cs) {
  std::vector<std::string> v;
  for (const Case* c : cs) v.push_back(c->id);
  return v;
}

TEST(Selection, EmptySelectionIsTheWholeRegistryInOrder) {
  const auto all = select_cases({});
  ASSERT_EQ(all.size(), all_cases().size());
  for (std::size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i], &all_cases()[i]);
}

TEST(Selection, OpDtypeAndFilterNarrowTheSelection) {
  Selection s;
  s.ops = {"exp", "matmul"};
  s.dtypes = {"f64"};
  const auto picked = select_cases(s);
  std::size_t want = 0;
  for (const Case& c : all_cases())
    want += (c.decl.op == OpKind::exp || c.decl.op == OpKind::matmul) && c.dtype == DType::f64;
  EXPECT_EQ(picked.size(), want);
  EXPECT_GT(want, 5u);
  for (const Case* c : picked) {
    EXPECT_TRUE(c->decl.op == OpKind::exp || c->decl.op == OpKind::matmul) << c->id;
    EXPECT_EQ(c->dtype, DType::f64) << c->id;
  }
  EXPECT_TRUE(std::is_sorted(picked.begin(), picked.end()));  // registry order

  Selection f;
  f.filter = R"(shape=16x33,dtype=bf16\))";
  const auto filtered = select_cases(f);
  EXPECT_FALSE(filtered.empty());
  for (const Case* c : filtered) EXPECT_THAT(c->id, HasSubstr("shape=16x33,dtype=bf16)"));
  f.filter = "^exp\\(shape=7,dtype=f32\\)$";
  EXPECT_EQ(ids(select_cases(f)), std::vector<std::string>{"exp(shape=7,dtype=f32)"});
}

TEST(Selection, ShardsPartitionTheSelectionExactly) {
  for (const Selection& base : {Selection{}, Selection{{"sin"}, {"f32"}, "", 1, 1}}) {
    const auto whole = select_cases(base);
    for (int n : {1, 2, 3, 7}) {
      std::multiset<const Case*> together;
      std::size_t smallest = whole.size(), largest = 0;
      for (int i = 1; i <= n; ++i) {
        Selection s = base;
        parse_shard(std::to_string(i) + "/" + std::to_string(n), s);
        const auto part = select_cases(s);
        together.insert(part.begin(), part.end());
        smallest = std::min(smallest, part.size());
        largest = std::max(largest, part.size());
      }
      EXPECT_EQ(together.size(), whole.size()) << "n = " << n;  // multiset: overlaps would add
      EXPECT_EQ(together, std::multiset<const Case*>(whole.begin(), whole.end())) << "n = " << n;
      EXPECT_LE(largest - smallest, 1u) << "n = " << n;
    }
  }
}

// The message of a usage error must name the value the user got wrong.
void expect_usage_error(const Selection& s, const std::string& bad_value) {
  try {
    select_cases(s);
    ADD_FAILURE() << "no UsageError for " << bad_value;
  } catch (const UsageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("'" + bad_value + "'"));
  }
}

TEST(Selection, BadOpDtypeOrRegexIsAUsageErrorNamingTheValue) {
  Selection op;
  op.ops = {"exp", "expp"};
  expect_usage_error(op, "expp");
  Selection dt;
  dt.dtypes = {"f8"};
  expect_usage_error(dt, "f8");
  dt.dtypes = {"i32"};  // a dtype, but no case runs in it
  expect_usage_error(dt, "i32");
  Selection re;
  re.filter = "exp(";
  expect_usage_error(re, "exp(");
}

TEST(Selection, ParseShard) {
  Selection s;
  parse_shard("2/4", s);
  EXPECT_EQ(s.shard_index, 2);
  EXPECT_EQ(s.shard_count, 4);
  parse_shard("1/1", s);
  EXPECT_EQ(s.shard_index, 1);
  EXPECT_EQ(s.shard_count, 1);
  for (const std::string bad : {"0/4", "5/4", "1/0", "x", "", "2/4x", "2-4", "-1/4", "/4", "3/"}) {
    Selection t;
    try {
      parse_shard(bad, t);
      ADD_FAILURE() << "no UsageError for '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_THAT(e.what(), HasSubstr("'" + bad + "'"));
    }
    EXPECT_EQ(t.shard_index, 1);  // untouched on error
    EXPECT_EQ(t.shard_count, 1);
  }
}

}  // namespace
}  // namespace gp
