// Unit tests of the caching experiment's pieces that need no server: record generation,
// codecs, the LRU cache, the Zipf sampler, the local tier and the experiment's parameters.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "caching/caching_run.h"
#include "caching/codec.h"
#include "caching/experiment.h"
#include "caching/lru.h"
#include "caching/query_sample.h"
#include "caching/records.h"
#include "caching/tiers.h"
#include "caching/zipf.h"
#include "common/params.h"

using namespace perflab;
using namespace perflab::caching;

namespace {

const std::vector<Encoding> kEncodings = {Encoding::Native, Encoding::Json, Encoding::Protobuf,
                                          Encoding::ProtobufZlib};

}  // namespace

TEST(CachingRecords, GenerationIsDeterministicForASeed) {
  EXPECT_EQ(generate_document(42, 0, 60 * 1024), generate_document(42, 0, 60 * 1024));
  EXPECT_EQ(generate_comments(42, 1, 1000), generate_comments(42, 1, 1000));
  EXPECT_NE(generate_document(42, 0, 60 * 1024).body, generate_document(43, 0, 60 * 1024).body);
  EXPECT_NE(generate_document(42, 0, 60 * 1024).body, generate_document(42, 1, 60 * 1024).body);
  EXPECT_NE(generate_comments(42, 1, 10), generate_comments(42, 2, 10));
}

TEST(CachingRecords, GoldenValuesDoNotDriftBetweenVersions) {
  // Runs repeat only if the generator's algorithm stays put: pin a few values.
  const Document d = generate_document(42, 0, 64);
  EXPECT_EQ(d.key, "doc-0");
  EXPECT_EQ(d.body, "Process group fact they this who. Last with little eye man datas");
  EXPECT_EQ(derive_seed(1, 2, 3), 15020427595393229491ULL);
}

TEST(CachingRecords, SizesAndFieldsMatchTheArticle) {
  const Document d = generate_document(7, 3, 60 * 1024);
  EXPECT_EQ(d.key, "doc-3");
  EXPECT_EQ(d.body.size(), 60u * 1024);
  EXPECT_FALSE(d.title.empty());
  EXPECT_FALSE(d.author.empty());
  EXPECT_GT(d.created_at_ms, 1'300'000'000'000);

  const CommentList l = generate_comments(7, 5, 1000);
  ASSERT_EQ(l.comments.size(), 1000u);
  EXPECT_EQ(l.group_id, 5);
  std::set<std::int64_t> ids;
  std::int64_t prev_id = 0, prev_t = 0;
  for (const auto& c : l.comments) {
    EXPECT_EQ(c.group_id, 5);
    EXPECT_GT(c.id, prev_id);
    EXPECT_GT(c.created_at_ms, prev_t);
    EXPECT_GE(c.body.size(), 150u);
    EXPECT_LE(c.body.size(), 450u);
    EXPECT_FALSE(c.author.empty());
    ids.insert(c.id);
    prev_id = c.id;
    prev_t = c.created_at_ms;
  }
  EXPECT_EQ(ids.size(), 1000u);
  EXPECT_GT(footprint(l), 1000u * 150);
  EXPECT_GT(footprint(d), 60u * 1024);
}

TEST(CachingCodec, EveryRecordKindRoundTripsInEveryEncoding) {
  const Document d = generate_document(1, 0, 60 * 1024);
  const CommentList l = generate_comments(1, 9, 1000);
  for (Encoding e : kEncodings) {
    for (int level : {0, 1, 6, 9}) {
      const Codec c{e, level};
      SCOPED_TRACE(std::string(to_string(e)) + " level " + std::to_string(level));
      EXPECT_EQ(c.decode_document(c.encode(d)), d);
      EXPECT_EQ(c.decode_list(c.encode(l)), l);
      EXPECT_EQ(c.decode_comment(c.encode(l.comments[17])), l.comments[17]);
      if (e != Encoding::ProtobufZlib) break;  // the level only matters to zlib
    }
  }
}

TEST(CachingCodec, EdgeValuesRoundTrip) {
  Comment c;
  c.id = -1;
  c.group_id = std::numeric_limits<std::int64_t>::max();
  c.author = "\xc3\xa9l\xc3\xa8ve \"quoted\" \\ tab\t";
  c.created_at_ms = std::numeric_limits<std::int64_t>::min();
  c.score = -7;
  c.approved = true;
  CommentList empty;
  empty.group_id = 3;
  for (Encoding e : kEncodings) {
    const Codec codec{e, 6};
    EXPECT_EQ(codec.decode_comment(codec.encode(c)), c) << to_string(e);
    EXPECT_EQ(codec.decode_list(codec.encode(empty)), empty) << to_string(e);
    EXPECT_EQ(codec.decode_document(codec.encode(Document{})), Document{}) << to_string(e);
  }
}

TEST(CachingCodec, SizesOrderAsExpected) {
  const Document d = generate_document(1, 0, 60 * 1024);
  const CommentList l = generate_comments(1, 1, 1000);
  const auto msgpack = Codec{Encoding::Native, 6}.encode(l);
  const auto json = Codec{Encoding::Json, 6}.encode(l);
  const auto pb = Codec{Encoding::Protobuf, 6}.encode(l);
  const auto z = Codec{Encoding::ProtobufZlib, 6}.encode(l);
  EXPECT_EQ(json.front(), '{');  // JSON text
  EXPECT_NE(json.find("\"comments\""), std::string::npos);
  // The native remote form is MessagePack: an array of 2 (0x92), the group id, then an array of
  // 1,000 comments (0xdc: array 16, 0x03e8), each an array of 7 fields (0x97).
  EXPECT_EQ(msgpack.substr(0, 2), std::string("\x92\x01", 2));
  EXPECT_EQ(msgpack.substr(2, 4), std::string("\xdc\x03\xe8\x97", 4));
  EXPECT_LT(msgpack.size(), json.size());  // no field names, binary numbers
  EXPECT_LT(pb.size(), json.size());
  EXPECT_LT(z.size(), pb.size() / 2);  // prose-like text compresses
  const Codec best{Encoding::ProtobufZlib, 9}, stored{Encoding::ProtobufZlib, 0};
  EXPECT_LT(best.encode(d).size(), stored.encode(d).size());
}

TEST(CachingCodec, MalformedInputIsACodecError) {
  const Codec json{Encoding::Json, 6}, pb{Encoding::Protobuf, 6}, z{Encoding::ProtobufZlib, 6};
  EXPECT_THROW(json.decode_document("{not json"), CodecError);
  EXPECT_THROW(json.decode_document("{\"key\": 1}"), CodecError);
  EXPECT_THROW(json.decode_list("{\"group_id\": 1, \"comments\": 5}"), CodecError);
  EXPECT_THROW(pb.decode_document(std::string("\xff\xff\xff\xff\xff", 5)), CodecError);
  EXPECT_THROW(z.decode_document("ab"), CodecError);
  EXPECT_THROW(z.decode_document(std::string("\x10\x00\x00\x00garbage", 11)), CodecError);
  EXPECT_THROW(zlib_compress("x", 10), CodecError);
  EXPECT_EQ(zlib_decompress(zlib_compress("hello hello hello", 9)), "hello hello hello");
}

TEST(CachingCodec, JsonRefusesWhatDoesNotDescribeTheRecord) {
  const Codec json{Encoding::Json, 6};
  const Comment c{5, 3, "al", 1306886400000, "a body", -2, true};  // nothing to escape
  const std::string good = json.encode(c);
  ASSERT_EQ(json.decode_comment(good), c);
  // Whitespace anywhere, and the fields in any order, are JSON: read.
  EXPECT_EQ(json.decode_comment(" \n" + good + " \t"), c);
  const std::string reordered =
      "{\"approved\": " + std::string(c.approved ? "true" : "false") +
      ", \"score\": " + std::to_string(c.score) + ", \"body\": \"" + c.body +
      "\", \"created_at_ms\": " + std::to_string(c.created_at_ms) + ", \"author\": \"" + c.author +
      "\", \"group_id\": " + std::to_string(c.group_id) + ", \"id\": " + std::to_string(c.id) + "}";
  EXPECT_EQ(json.decode_comment(reordered), c);
  const auto without = [&](const std::string& field) {
    const std::size_t at = good.find("\"" + field + "\"");
    const std::size_t end = good.find_first_of(",}", good.find(':', at) + 1);
    std::string s = good;
    return s.erase(at, end + 1 - at);
  };
  for (const char* f : {"id", "author", "body", "approved"}) {
    SCOPED_TRACE(f);
    try {
      json.decode_comment(without(f) + (std::string(f) == "approved" ? "}" : ""));
      ADD_FAILURE() << "a comment without '" << f << "' was read";
    } catch (const CodecError& e) {
      EXPECT_NE(std::string(e.what()).find("JSON"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(json.decode_comment(good + "{}"), CodecError);                      // trailing
  EXPECT_THROW(json.decode_comment(good.substr(0, good.size() - 1)), CodecError);  // cut
  EXPECT_THROW(json.decode_comment("{\"id\": 1, " + good.substr(1)), CodecError);  // twice
  EXPECT_THROW(json.decode_comment("{\"extra\": 1, " + good.substr(1)), CodecError);
  std::string big = good;
  big.replace(big.find("\"score\": ") + 9, std::to_string(c.score).size(), "4294967296");
  EXPECT_THROW(json.decode_comment(big), CodecError);  // beyond a 32-bit score
  EXPECT_THROW(json.decode_document("[]"), CodecError);
  EXPECT_THROW(json.decode_document(""), CodecError);
}

TEST(CachingCodec, MessagePackRefusesWhatDoesNotDescribeTheRecord) {
  const Codec native{Encoding::Native, 6};
  const Document d = generate_document(2, 0, 1024);
  const std::string good = native.encode(d);
  ASSERT_EQ(native.decode_document(good), d);
  EXPECT_THROW(native.decode_document(good + '\x00'), CodecError);                    // trailing
  EXPECT_THROW(native.decode_document(good.substr(0, good.size() - 1)), CodecError);  // cut
  EXPECT_THROW(native.decode_document(""), CodecError);
  EXPECT_THROW(native.decode_document(std::string("\x94", 1)), CodecError);  // 4 fields, none
  EXPECT_THROW(native.decode_list(good), CodecError);     // a document is no list
  EXPECT_THROW(native.decode_comment(good), CodecError);  // nor a comment
  // A field of another type: the document's created_at_ms as a string "5" instead of 5.
  const Document one{"k", "t", "a", 5, "b"};
  const std::string k = "\xa1"
                        "k",
                    t = "\xa1"
                        "t",
                    a = "\xa1"
                        "a",
                    b = "\xa1"
                        "b";
  EXPECT_EQ(native.decode_document("\x95" + k + t + a + "\x05" + b), one);
  EXPECT_THROW(native.decode_document("\x95" + k + t + a +
                                      "\xa1"
                                      "5" +
                                      b),
               CodecError);
  // A score beyond 32 bits (uint 64: 0xcf, then 2^32 in 8 bytes), and a flag that is a number.
  const std::string head = "\x97\x01\x01" + a + "\x01" + b;
  EXPECT_THROW(native.decode_comment(head + std::string("\xcf\0\0\0\x01\0\0\0\0\xc3", 10)),
               CodecError);
  EXPECT_THROW(native.decode_comment(head + "\x07\x01"), CodecError);
  EXPECT_EQ(native.decode_comment(head + "\x07\xc3"), (Comment{1, 1, "a", 1, "b", 7, true}));
  // Counts the input cannot hold are refused before anything is reserved for them: an array of
  // 2^32 - 1 comments in 8 bytes.
  EXPECT_THROW(native.decode_list(std::string("\x92\x01\xdd\xff\xff\xff\xff\x97", 8)), CodecError);
  EXPECT_THROW(native.decode_document(std::string("\x95\xdb\xff\xff\xff\xff", 6)), CodecError);
}

TEST(CachingCodec, EncodingNames) {
  for (Encoding e : kEncodings) EXPECT_EQ(encoding_from_string(to_string(e)), e);
  EXPECT_FALSE(encoding_from_string("pickle"));
  EXPECT_EQ(encoding_names(),
            (std::vector<std::string>{"native", "json", "protobuf", "protobuf+zlib"}));
  EXPECT_EQ(all_encodings(), kEncodings);
}

TEST(CachingLru, KeepsWithinBudgetAndEvictsLeastRecentlyUsed) {
  LruCache<int> c(100);
  EXPECT_TRUE(c.put("a", 1, 40));
  EXPECT_TRUE(c.put("b", 2, 40));
  ASSERT_NE(c.get("a"), nullptr);  // a is now the most recent
  EXPECT_TRUE(c.put("c", 3, 40));  // evicts b
  EXPECT_EQ(c.get("b"), nullptr);
  ASSERT_NE(c.get("a"), nullptr);
  EXPECT_EQ(*c.get("c"), 3);
  LruStats s = c.stats();
  EXPECT_EQ(s.bytes, 80u);
  EXPECT_EQ(s.entries, 2u);
  EXPECT_EQ(s.evictions, 1u);
  EXPECT_EQ(s.hits, 3u);
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(c.bytes_of("a"), 40u);
  EXPECT_EQ(c.bytes_of("b"), 0u);
}

TEST(CachingLru, ReplaceRejectEraseAndClear) {
  LruCache<std::string> c(100);
  c.put("a", "x", 30);
  c.put("a", "y", 50);  // replaces, charges the new size only
  EXPECT_EQ(c.stats().bytes, 50u);
  EXPECT_EQ(*c.get("a"), "y");
  EXPECT_FALSE(c.put("big", "z", 101));  // larger than the whole budget
  EXPECT_EQ(c.stats().rejected, 1u);
  EXPECT_TRUE(c.contains("a"));  // nothing evicted for a rejected value
  EXPECT_TRUE(c.put("b", "b", 50));
  EXPECT_TRUE(c.put("c", "c", 100));  // needs everything
  EXPECT_EQ(c.stats().evictions, 2u);
  EXPECT_EQ(c.stats().bytes, 100u);
  EXPECT_TRUE(c.erase("c"));
  EXPECT_EQ(c.stats().bytes, 0u);
  c.put("d", "d", 10);
  c.clear();
  EXPECT_EQ(c.stats().entries, 0u);
  EXPECT_EQ(c.get("d"), nullptr);
  c.reset_counters();
  EXPECT_EQ(c.stats().misses, 0u);
  LruCache<int> zero(0);
  EXPECT_FALSE(zero.put("a", 1, 1));
  EXPECT_TRUE(zero.put("empty", 1, 0));
}

TEST(CachingLru, ManyEntriesNeverExceedTheBudget) {
  LruCache<int> c(10'000);
  for (int i = 0; i < 5000; ++i) {
    std::string key = "k";
    key += std::to_string(i % 700);
    c.put(key, i, static_cast<std::size_t>(10 + (i * 37) % 300));
    ASSERT_LE(c.stats().bytes, 10'000u);
  }
  EXPECT_GT(c.stats().evictions, 0u);
}

TEST(CachingZipf, DeterministicAndSkewed) {
  ZipfSampler a(100, 1.0, 5), b(100, 1.0, 5), other(100, 1.0, 6);
  std::vector<std::size_t> sa, sb, so;
  for (int i = 0; i < 1000; ++i) {
    sa.push_back(a.next());
    sb.push_back(b.next());
    so.push_back(other.next());
  }
  EXPECT_EQ(sa, sb);
  EXPECT_NE(sa, so);

  ZipfSampler z(10, 1.0, 11);
  std::map<std::size_t, int> counts;
  const int n = 200'000;
  for (int i = 0; i < n; ++i) counts[z.next()]++;
  double h = 0;
  for (int k = 1; k <= 10; ++k) h += 1.0 / k;
  for (std::size_t k = 0; k < 10; ++k) {
    EXPECT_NEAR(z.probability(k), 1.0 / static_cast<double>(k + 1) / h, 1e-12);
    EXPECT_NEAR(static_cast<double>(counts[k]) / n, z.probability(k), 0.005) << "rank " << k;
  }
  EXPECT_GT(counts[0], counts[1]);
  EXPECT_GT(counts[1], counts[9]);
}

TEST(CachingZipf, ZeroExponentIsUniformAndBadArgumentsThrow) {
  ZipfSampler u(4, 0.0, 1);
  for (std::size_t k = 0; k < 4; ++k) EXPECT_NEAR(u.probability(k), 0.25, 1e-12);
  ZipfSampler one(1, 2.0, 1);
  EXPECT_EQ(one.next(), 0u);
  EXPECT_THROW(ZipfSampler(0, 1.0, 1), std::invalid_argument);
  EXPECT_THROW(ZipfSampler(5, -1.0, 1), std::invalid_argument);
}

TEST(CachingLocalTier, NativeHoldsReadyObjectsEncodedHoldsBytes) {
  const Document d = generate_document(3, 0, 10 * 1024);
  const CommentList l = generate_comments(3, 4, 100);
  LocalTier native(50u << 20, Codec{Encoding::Native, 6});
  native.put_document(d);
  native.put_list(l);
  auto d1 = native.get_document(d.key), d2 = native.get_document(d.key);
  ASSERT_TRUE(d1);
  EXPECT_EQ(d1.get(), d2.get());  // the same ready object, no copy, no decode
  EXPECT_EQ(*d1, d);
  EXPECT_EQ(*native.get_list(4), l);
  EXPECT_EQ(native.document_bytes(d.key), footprint(*d1));

  for (Encoding e : {Encoding::Json, Encoding::Protobuf, Encoding::ProtobufZlib}) {
    LocalTier enc(50u << 20, Codec{e, 6});
    enc.put_document(d);
    enc.put_list(l);
    auto e1 = enc.get_document(d.key), e2 = enc.get_document(d.key);
    ASSERT_TRUE(e1);
    EXPECT_NE(e1.get(), e2.get());  // decoded on every get
    EXPECT_EQ(*e1, d);
    EXPECT_EQ(*enc.get_list(4), l);
    EXPECT_LT(enc.document_bytes(d.key), native.document_bytes(d.key) + 64);
    enc.put_document_bytes("other", Codec{e, 6}.encode(d));
    EXPECT_EQ(*enc.get_document("other"), d);
  }
  EXPECT_EQ(native.get_document("missing"), nullptr);
  EXPECT_EQ(native.stats().misses, 1u);
}

TEST(CachingLocalTier, AGetIsAFetchThenARepeatableDecode) {
  const Document d = generate_document(3, 0, 4 * 1024);
  const CommentList l = generate_comments(3, 4, 10);
  for (Encoding e : kEncodings) {
    SCOPED_TRACE(to_string(e));
    LocalTier t(50u << 20, Codec{e, 6});
    t.put_document(d);
    t.put_list(l);
    EXPECT_FALSE(t.fetch_document("missing"));
    ASSERT_TRUE(t.fetch_document(d.key));
    ASSERT_TRUE(t.fetch_list(4));
    const auto d1 = t.decode_document(), d2 = t.decode_document();
    ASSERT_TRUE(d1 && d2);
    EXPECT_EQ(*d1, d);
    EXPECT_EQ(*d2, d);
    // The ready object is handed over; an encoding is decoded again on every call.
    EXPECT_EQ(d1.get() == d2.get(), e == Encoding::Native);
    EXPECT_EQ(*t.decode_list(), l);
  }
}

TEST(CachingWorkloadGet, ChecksThatTheObjectIsTheRecordAskedFor) {
  const Document d = generate_document(1, 0, 1024);
  const CommentList l = generate_comments(1, 2, 10);
  LocalTier t(50u << 20, Codec{Encoding::Protobuf, 6});
  t.put_document(d);
  t.put_list(l);
  WorkloadGet doc(t, "document", d, l), list(t, "list", d, l);
  EXPECT_TRUE(doc.get());
  EXPECT_TRUE(list.get());
  EXPECT_TRUE(doc.fetch() && doc.decode() && doc.check());
  // Another record under the same key: the parts run, the check says no, the get throws.
  Document other = d;
  other.body.resize(10);
  t.put_document(other);
  EXPECT_TRUE(doc.fetch() && doc.decode());
  EXPECT_FALSE(doc.check());
  EXPECT_THROW(doc.get(), std::runtime_error);
  CommentList shorter = l;
  shorter.comments.pop_back();
  t.put_list(shorter);
  EXPECT_THROW(list.get(), std::runtime_error);
  // A record the tier lost: no get, no fetch, nothing to check.
  LocalTier empty(50u << 20, Codec{Encoding::Protobuf, 6});
  WorkloadGet lost(empty, "document", d, l);
  EXPECT_FALSE(lost.get());
  EXPECT_FALSE(lost.fetch());
  EXPECT_FALSE(lost.check());
}

TEST(CachingLocalTier, BudgetEvictsAndRejects) {
  LocalTier t(100 * 1024, Codec{Encoding::Native, 6});
  for (int i = 0; i < 10; ++i)
    t.put_document(generate_document(1, static_cast<unsigned>(i), 30 * 1024));
  EXPECT_LE(t.stats().bytes, 100u * 1024);
  EXPECT_GT(t.stats().evictions, 0u);
  EXPECT_TRUE(t.get_document("doc-9"));
  EXPECT_FALSE(t.get_document("doc-0"));
  t.put_document(generate_document(1, 99, 200 * 1024));
  EXPECT_FALSE(t.get_document("doc-99"));
  EXPECT_EQ(t.stats().rejected, 1u);
}

TEST(CachingExperiment, HasValidDefaults) {
  auto e = make_caching_experiment();
  ASSERT_TRUE(e);
  EXPECT_EQ(e->id(), "caching");
  const Params p = Params::resolve(e->params());
  EXPECT_EQ(p.get_int("list_size"), 1000);
  EXPECT_EQ(p.get_int("document_kb"), 60);
  EXPECT_EQ(p.get_int("local_budget_mb"), 50);
  EXPECT_EQ(p.get_string("encodings"), "native,json,protobuf,protobuf+zlib");
  EXPECT_THROW(Params::resolve(e->params(), {{"encodings", "pickle"}}), ParamError);
  EXPECT_THROW(Params::resolve(e->params(), {{"tiers", "memcache"}}), ParamError);
  EXPECT_THROW(Params::resolve(e->params(), {{"zlib_level", "10"}}), ParamError);
  for (const auto& s : e->params()) EXPECT_FALSE(s.help.empty()) << s.name;
}

TEST(CachingExperiment, ArticleTableQuotesTheFindingsFigures) {
  const Article a = make_caching_experiment()->article();
  ASSERT_EQ(a.tables.size(), 1u);
  const ArticleTable& t = a.tables[0];
  ASSERT_EQ(t.rows.size(), 7u);
  EXPECT_EQ(t.rows[1],
            (std::vector<std::string>{"memcache", "~2× faster, 2× cheaper in CPU (~10 ms saved)",
                                      "1.5× faster, 15× cheaper in CPU"}));
  EXPECT_EQ(t.rows[2], (std::vector<std::string>{"memcache + protobuf", "no visible change",
                                                 "20–25% slower and costlier"}));
  EXPECT_EQ(t.rows[3][2], "~5% slower");
  EXPECT_EQ(t.rows[4][2], "~100× faster, almost no CPU");
}

TEST(CachingAside, TheSweepIsForetoldFromTheMatrixsGetsFromRedis) {
  auto e = make_caching_experiment();
  const CachingPlan plan = CachingPlan::from(Params::resolve(e->params()));
  // Nothing measured yet: this machine's quiet figures (500 documents loaded, 1.4 s; 7 budgets ×
  // 4,500 reads × 1.14 ms).
  EXPECT_NEAR(aside_seconds(plan, MatrixPace{}), 1.4 + 35.9, 0.5);
  const CachingPlan none = CachingPlan::from(Params::resolve(e->params(), {{"aside_reads", "0"}}));
  EXPECT_EQ(aside_seconds(none, MatrixPace{}), 0);
  // Two recorded default runs' matrices (median document gets from Redis per encoding, their
  // whole gets' means over medians) and what their sweeps took: one quiet, one beside two busy
  // loops, whose gets' medians were quicker than the quiet one's and its sweep half as long again.
  const auto pace = [](double native, double json, double protobuf, double zlib, double ratio) {
    MatrixPace p;
    p.redis_document_s = {{Encoding::Native, native * 1e-6},
                          {Encoding::Json, json * 1e-6},
                          {Encoding::Protobuf, protobuf * 1e-6},
                          {Encoding::ProtobufZlib, zlib * 1e-6}};
    p.mean_over_median = ratio;
    return p;
  };
  const MatrixPace quiet = pace(140.3, 143.6, 138.9, 347.9, 0.999);
  const MatrixPace loaded = pace(78.6, 87.0, 75.3, 235.1, 1.334);
  EXPECT_NEAR(aside_seconds(plan, quiet), 35.6, 35.6 * 0.2);
  EXPECT_NEAR(aside_seconds(plan, loaded), 54.6, 54.6 * 0.2);
  // Gets twice as slow: reads twice as long (the loading as it was); twice the documents and
  // reads: twice the time.
  MatrixPace slower = quiet;
  for (auto& [enc, s] : slower.redis_document_s) s *= 2;
  EXPECT_NEAR(aside_seconds(plan, slower) - aside_seconds(plan, quiet),
              aside_seconds(plan, quiet) - 1.4, 1e-9);
  const CachingPlan more = CachingPlan::from(
      Params::resolve(e->params(), {{"aside_reads", "4000"}, {"aside_keys", "1000"}}));
  EXPECT_NEAR(aside_seconds(more, quiet), 2 * aside_seconds(plan, quiet), 1e-9);
}

TEST(CachingAside, TheSweepSlowsByTheLoadTheGetsShow) {
  // Gets whose means stand at or a little above their medians (quiet runs: 0.97 to 1.08 times):
  // a quiet machine, the sweep as foretold, within 15%; below them (a few fast outliers) no
  // faster.
  EXPECT_DOUBLE_EQ(aside_load(1.0), 1.0);
  EXPECT_DOUBLE_EQ(aside_load(0.97), 1.0);
  EXPECT_LT(aside_load(1.08), 1.15);
  // Two busy loops beside on two cores: means 1.25 to 1.36 times the medians, the sweeps 1.93 to
  // 2.28 times what the medians foretold for a quiet machine.
  EXPECT_GT(aside_load(1.25), 1.7);
  EXPECT_LT(aside_load(1.36), 2.4);
  // Growing with the load, bounded, and nothing from no figure.
  EXPECT_LT(aside_load(1.1), aside_load(1.2));
  EXPECT_LE(aside_load(100), 5.0);
  EXPECT_DOUBLE_EQ(aside_load(NAN), 1.0);
}

namespace {

QueryResult sample_result() {
  QueryResult r;
  r.key = "customer-7";
  r.columns = {"id", "item", "note"};
  r.rows = {{"1", "item \xc3\xa9", std::nullopt},
            {"2", "", "a \"quoted\"\nline"},
            {std::nullopt, std::nullopt, std::nullopt}};
  return r;
}

}  // namespace

TEST(CachingCodec, AQueryResultRoundTripsInEveryEncodingWithItsNulls) {
  QueryResult none = sample_result();
  none.rows.clear();
  for (Encoding e : all_encodings()) {
    SCOPED_TRACE(to_string(e));
    const Codec c{e, 6};
    for (const QueryResult& r : {sample_result(), none}) {
      const QueryResult back = c.decode_result(c.encode(r));
      EXPECT_EQ(back, r);
      // A null is not an empty text.
      if (!r.rows.empty()) {
        EXPECT_FALSE(back.rows[0][2].has_value());
        ASSERT_TRUE(back.rows[1][1].has_value());
        EXPECT_EQ(*back.rows[1][1], "");
      }
    }
  }
}

TEST(CachingCodec, AQueryResultWhoseRowsDoNotMatchItsColumnsIsRefused) {
  EXPECT_THROW(
      Codec{Encoding::Json}.decode_result(R"({"key":"k","columns":["a","b"],"rows":[["1"]]})"),
      CodecError);
  EXPECT_THROW(Codec{Encoding::Json}.decode_result(R"({"key":"k","columns":["a"]})"), CodecError);
  EXPECT_THROW(Codec{Encoding::Native}.decode_result(
                   Codec{Encoding::Native}.encode(generate_document(1, 0, 100))),
               CodecError);
}

TEST(CachingLocalTier, HoldsQueryResultsReadyOrEncoded) {
  for (Encoding e : {Encoding::Native, Encoding::Protobuf}) {
    LocalTier t(1 << 20, Codec{e, 6});
    EXPECT_FALSE(t.fetch_result("customer-7"));
    t.put_result(sample_result());
    ASSERT_TRUE(t.fetch_result("customer-7"));
    EXPECT_EQ(*t.decode_result(), sample_result());
    EXPECT_GT(t.result_bytes("customer-7"), 0u);
  }
}

TEST(CachingWorkloadGet, TheQueryWorkloadTakesItsKeysInTurn) {
  LocalTier t(1 << 20, Codec{Encoding::Native, 6});
  std::vector<QueryResult> results(3, sample_result());
  for (std::size_t i = 0; i < results.size(); ++i) results[i].key = "k" + std::to_string(i);
  results[2].rows.pop_back();
  for (const auto& r : results) t.put_result(r);
  WorkloadGet get(t, results);
  for (int i = 0; i < 7; ++i) EXPECT_TRUE(get.get()) << i;
  // A tier that returns another key's rows fails the check.
  LocalTier wrong(1 << 20, Codec{Encoding::Native, 6});
  for (const auto& r : results) {
    QueryResult other = results[0];
    other.key = r.key;
    other.rows.push_back(other.rows.front());
    wrong.put_result(other);
  }
  WorkloadGet bad(wrong, results);
  EXPECT_THROW(bad.get(), std::runtime_error);
}

TEST(CachingQuerySource, KeysAreSqlOnlyWhenTheyBeginWithAQuery) {
  for (const char* sql : {"SELECT id FROM t", "  select 1", "WITH a AS (SELECT 1) SELECT * FROM a",
                          "VALUES (1), (2)", "table customers", "SELECT\nid FROM t"})
    EXPECT_TRUE(keys_are_sql(sql)) << sql;
  for (const char* file : {"keys.txt", "/tmp/select.txt", "selection.txt", "./SELECT", "tables"})
    EXPECT_FALSE(keys_are_sql(file)) << file;
}
