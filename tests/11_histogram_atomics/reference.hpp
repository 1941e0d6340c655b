// Lab 11's inputs, CPU reference and comparison. The inputs are what histograms are taken of: bytes of English
// text and of a greyscale image, drawn from the run's seed. Neither is uniform: a few bins are hot (in text the
// space and 'e', in the image its clipped highlights at 255), and the contention on them is the lab's subject.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "cml/compare.hpp"
#include "cml/random.hpp"
#include "histogram.hpp"

namespace histogram_inputs {

// fill(begin, end, generator) over [0, n): from the run's generator up to one chunk, as cml::random_values draws.
template <class Fill>
void draw(std::size_t n, Fill fill)
{
    if (n <= cml::kRandomChunk) {
        fill(0, n, cml::rng());
    } else {
        cml::for_each_random_chunk(n, fill);
    }
}

}  // namespace histogram_inputs

// n bytes of English-like text: words of a small vocabulary, the common ones far more often (Zipf's law, as in
// real text), sentences that start with a capital and end with a full stop, commas, and a line break now and then.
inline std::vector<unsigned char> text_bytes(std::size_t n)
{
    static const char* const kWords[] = {
        "the",    "of",    "and",    "to",    "a",      "in",      "is",     "that",  "for",   "it",     "as",
        "was",    "with",  "be",     "by",    "on",     "not",     "he",     "this",  "are",   "or",     "his",
        "from",   "at",    "which",  "but",   "have",   "an",      "had",    "they",  "you",   "were",   "their",
        "one",    "all",   "we",     "can",   "her",    "has",     "there",  "been",  "if",    "more",   "when",
        "will",   "would", "who",    "so",    "no",     "memory",  "thread", "block", "warp",  "shared", "global",
        "atomic", "bins",  "kernel", "every", "bytes",  "quickly", "zero",   "jazz",  "video", "next",   "keep"};
    constexpr std::size_t kCount = sizeof(kWords) / sizeof(kWords[0]);
    std::vector<double> weights(kCount);
    for (std::size_t w = 0; w < kCount; ++w) weights[w] = 1.0 / double(w + 1);
    const std::discrete_distribution<std::size_t> word_of(weights.begin(), weights.end());
    std::vector<unsigned char> text(n);
    histogram_inputs::draw(n, [&](std::size_t begin, std::size_t end, std::mt19937_64& generator) {
        std::discrete_distribution<std::size_t> word = word_of;
        std::uniform_int_distribution<int> punctuation(0, 99);
        bool capital = true;
        std::size_t i = begin;
        while (i < end) {
            const char* w = kWords[word(generator)];
            for (std::size_t k = 0; w[k] && i < end; ++k, ++i)
                text[i] = static_cast<unsigned char>(capital && k == 0 ? w[k] - 'a' + 'A' : w[k]);
            capital = false;
            const int p = punctuation(generator);
            if (p < 8 && i < end) {
                text[i++] = '.';
                capital = true;
            } else if (p < 14 && i < end) {
                text[i++] = ',';
            }
            if (i < end) text[i++] = p == 99 ? '\n' : ' ';
        }
    });
    return text;
}

// n bytes of a greyscale photograph-like image, 1024 pixels wide: smooth light and shade, a little sensor noise,
// and highlights clipped to 255, the hottest bin.
inline std::vector<unsigned char> image_bytes(std::size_t n)
{
    constexpr std::size_t kWidth = 1024;
    std::vector<unsigned char> image(n);
    histogram_inputs::draw(n, [&](std::size_t begin, std::size_t end, std::mt19937_64& generator) {
        std::normal_distribution<double> noise(0.0, 3.0);
        for (std::size_t i = begin; i < end; ++i) {
            const double x = double(i % kWidth), y = double(i / kWidth);
            const double shade = 110.0 + 100.0 * std::sin(x / 150.0) * std::cos(y / 90.0) + 60.0 * x / kWidth;
            image[i] = static_cast<unsigned char>(std::clamp(std::lround(shade + noise(generator)), 0L, 255L));
        }
    });
    return image;
}

// n bytes drawn uniformly: every bin equally likely, the least contention a histogram meets.
inline std::vector<unsigned char> uniform_bytes(std::size_t n)
{
    std::vector<unsigned char> bytes(n);
    histogram_inputs::draw(n, [&](std::size_t begin, std::size_t end, std::mt19937_64& generator) {
        std::uniform_int_distribution<int> byte(0, 255);
        for (std::size_t i = begin; i < end; ++i) bytes[i] = static_cast<unsigned char>(byte(generator));
    });
    return bytes;
}

inline std::vector<unsigned long long> histogram_reference(const std::vector<unsigned char>& data)
{
    std::vector<unsigned long long> bins(kBins, 0);
    for (unsigned char byte : data) ++bins[byte];
    return bins;
}

// Counts are whole numbers: every bin must be exact. A bin still all 0xFF bytes was never written.
inline cml::Comparison compare_bins(const std::vector<unsigned>& got, const std::vector<unsigned long long>& want)
{
    cml::Comparison c;
    c.count = want.size();
    for (std::size_t v = 0; v < want.size(); ++v) {
        const unsigned long long value = v < got.size() ? got[v] : 0;
        if (value == want[v]) continue;
        if (c.ok) {
            c.ok = false;
            c.first_bad = v;
            c.first_bad_got = double(value);
            c.first_bad_want = double(want[v]);
            c.first_bad_unwritten = value == 0xFFFFFFFFu;
        }
        ++c.bad_count;
        const double error = std::fabs(double(value) - double(want[v])) / std::max(double(want[v]), 1.0);
        c.max_rel_error = std::max(c.max_rel_error, error);
    }
    return c;
}

// The contention of an input, in one line: how many bins it uses, and the share of the busiest, whose atomics
// queue at one address.
inline std::string contention(const std::vector<unsigned long long>& bins)
{
    unsigned long long total = 0;
    int used = 0;
    std::size_t busiest = 0;
    for (std::size_t v = 0; v < bins.size(); ++v) {
        total += bins[v];
        used += bins[v] > 0;
        if (bins[v] > bins[busiest]) busiest = v;
    }
    std::string name = std::to_string(busiest);
    if (busiest == ' ') name += " (a space)";
    if (busiest > ' ' && busiest < 127) name += std::string(" ('") + char(busiest) + "')";
    char text[160];
    std::snprintf(text, sizeof text, "%d of %d bins used; the busiest, %s, holds %.1f%% of the bytes", used, kBins,
                  name.c_str(), total ? 100.0 * double(bins[busiest]) / double(total) : 0.0);
    return text;
}
