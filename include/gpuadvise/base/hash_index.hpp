// An index of 32-bit entries by 64-bit key hash, for the loads and checks that meet every offer of a
// million-row table once: open addressing, no allocation per key, and a tag byte per slot (the
// hash's top byte) so that a probe reads a small array of tags and looks at an entry's own record
// (an offer, a key) only where the tag matches. At a million keys the tags stay in cache where the
// records do not: one cache miss per key, where slots of (hash, entry) took two or three.
//
// The index knows nothing of keys: `probe` asks the caller whether an entry is the key looked for,
// and growing asks the caller for an entry's hash (its records keep them). Equal hashes of different
// keys are told apart by the caller's `same`, so each key may have a slot of its own.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <new>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuadvise/base/text.hpp"

namespace gpuadvise {

class HashIndex {
public:
    // Advice on a fresh, untouched block (huge pages for a large one); nullptr: none.
    using Advise = void (*)(const void* begin, std::size_t bytes);
    explicit HashIndex(Advise advise = nullptr) : advise_(advise) {}

    struct Probe {
        std::size_t slot = 0;
        bool found = false;
    };

    std::size_t size() const { return keys_; }

    // Room for `keys` keys in all without growing (at most three quarters full, so that a probe for a
    // missing key reads 8.5 slots on average, linear probing's expected length (1 + 1/(1 - 3/4)^2) / 2
    // for hashes that spread well: one or two cache lines of tags). `hash_of(entry)` places the
    // entries already in.
    template <class HashOf>
    void reserve(std::size_t keys, const HashOf& hash_of) {
        const std::size_t slots = std::bit_ceil(keys + keys / 3 + 2);
        if (slots > slots_) resize(slots, hash_of);
    }

    // The slot of the entry for `hash` that `same(entry)` accepts (found), or the empty slot where
    // a new key of that hash goes (valid until the next put or reserve; call reserve(size() + 1)
    // before the probe that may add a key).
    template <class Same>
    Probe probe(std::size_t hash, const Same& same) const {
        const std::uint8_t tag = tag_of(hash);
        const std::size_t mask = slots_ - 1;
        std::size_t slot = hash & mask;
        for (; tags_[slot] != 0; slot = (slot + 1) & mask)
            if (tags_[slot] == tag && same(entries_[slot])) return {slot, true};
        return {slot, false};
    }

    std::uint32_t entry(const Probe& p) const { return entries_[p.slot]; }

    // A new key's entry, in the empty slot a probe for its hash found.
    void put(const Probe& p, std::size_t hash, std::uint32_t entry) {
        tags_[p.slot] = tag_of(hash);
        entries_[p.slot] = entry;
        ++keys_;
    }

private:
    static std::uint8_t tag_of(std::size_t hash) {
        const auto tag = static_cast<std::uint8_t>(hash >> 56);
        return tag == 0 ? 1 : tag;  // 0 marks an empty slot
    }

    // `slots` slots (a power of two), the entries placed again by their hashes. The entries of empty
    // slots are never read: left unwritten (untouched pages cost nothing).
    template <class HashOf>
    void resize(std::size_t slots, const HashOf& hash_of) {
        auto tags = std::make_unique_for_overwrite<std::uint8_t[]>(slots);
        auto entries = std::make_unique_for_overwrite<std::uint32_t[]>(slots);
        if (advise_) {
            advise_(tags.get(), slots);
            advise_(entries.get(), slots * sizeof(std::uint32_t));
        }
        std::memset(tags.get(), 0, slots);
        const std::unique_ptr<std::uint8_t[]> old_tags = std::exchange(tags_, std::move(tags));
        const std::unique_ptr<std::uint32_t[]> old_entries = std::exchange(entries_, std::move(entries));
        const std::size_t old_slots = std::exchange(slots_, slots);
        for (std::size_t i = 0; i < old_slots; ++i) {
            if (old_tags[i] == 0) continue;
            std::size_t slot = hash_of(old_entries[i]) & (slots - 1);
            while (tags_[slot] != 0) slot = (slot + 1) & (slots - 1);
            tags_[slot] = old_tags[i];
            entries_[slot] = old_entries[i];
        }
    }

    Advise advise_;
    std::unique_ptr<std::uint8_t[]> tags_;
    std::unique_ptr<std::uint32_t[]> entries_;
    std::size_t slots_ = 0, keys_ = 0;
};

// Texts by number: each distinct text is kept once and numbered in the order it first came
// (interned), so that records may hold a 32-bit id where they held a string, and compare ids where
// they compared texts. Ids and their texts stay valid while the pool lives.
class TextPool {
public:
    // Where `text` is, or where it would go (valid until the next add).
    struct Lookup {
        std::size_t hash;
        HashIndex::Probe at;
        std::uint32_t id;  // when at.found
    };
    Lookup find(std::string_view text) {
        const std::size_t hash = hash_text(text);
        index_.reserve(records_.size() + 1, [&](std::uint32_t e) { return records_[e]->hash; });
        const HashIndex::Probe at = index_.probe(hash, [&](std::uint32_t e) {
            const Record& r = *records_[e];
            return r.hash == hash && r.size == text.size() &&
                   (r.size == 0 || std::memcmp(r.chars(), text.data(), r.size) == 0);  // data() may be null
        });
        return {hash, at, at.found ? index_.entry(at) : 0};
    }
    // A text that `find` did not find: its new id.
    std::uint32_t add(const Lookup& l, std::string_view text) {
        records_.push_back(store(text, l.hash));
        const auto id = static_cast<std::uint32_t>(records_.size() - 1);
        index_.put(l.at, l.hash, id);
        return id;
    }
    std::uint32_t intern(std::string_view text) {
        const Lookup l = find(text);
        return l.at.found ? l.id : add(l, text);
    }
    std::string_view text(std::uint32_t id) const { return {records_[id]->chars(), records_[id]->size}; }
    std::size_t size() const { return records_.size(); }

private:
    // A text's record: its hash and size, its characters right after (one cache line to compare a
    // short text, where a std::string beside its hash took one for the pair and one for the characters).
    struct Record {
        std::size_t hash, size;
        const char* chars() const { return reinterpret_cast<const char*>(this + 1); }
    };
    // A record in the current block, or a new one (blocks never move: ids' texts stay where they are).
    const Record* store(std::string_view text, std::size_t hash) {
        constexpr std::size_t kAlign = alignof(Record), kMaxBlock = std::size_t{64} << 10;
        const std::size_t bytes = (sizeof(Record) + text.size() + kAlign - 1) / kAlign * kAlign;
        if (blocks_.empty() || block_used_ + bytes > block_size_) {
            block_size_ = std::max(bytes, std::min(kMaxBlock, std::max<std::size_t>(1024, 2 * block_size_)));
            blocks_.push_back(
                std::make_unique_for_overwrite<char[]>(block_size_));  // new[]: aligned for Record
            block_used_ = 0;
        }
        char* at = blocks_.back().get() + block_used_;
        block_used_ += bytes;
        auto* record = new (at) Record{hash, text.size()};
        if (!text.empty()) std::memcpy(at + sizeof(Record), text.data(), text.size());
        return record;
    }
    HashIndex index_;
    std::vector<const Record*> records_;  // by id
    std::vector<std::unique_ptr<char[]>> blocks_;
    std::size_t block_used_ = 0, block_size_ = 0;
};

// A memo of values by text (what a function of the text gave the first time): a TextPool of the
// texts, no division per lookup where std::unordered_map's prime bucket count takes one (40 cycles,
// four lookups a row of a million-row table). References stay valid while the memo lives, except
// with a `limit`: past that many texts a new one's value is made each time, and its reference holds
// until the next get (a table of a million distinct texts does not keep a million values).
template <class V>
class TextMemo {
public:
    explicit TextMemo(std::size_t limit = static_cast<std::size_t>(-1)) : limit_(limit) {}

    // The value for `text`, made by make() the first time (nothing is kept when make() throws).
    template <class Make>
    const V& get(std::string_view text, const Make& make) {
        const TextPool::Lookup l = texts_.find(text);
        if (l.at.found) return values_[l.id];
        if (values_.size() >= limit_) return scratch_.emplace(make());
        values_.push_back(make());
        texts_.add(l, text);
        return values_.back();
    }
    std::size_t size() const { return values_.size(); }

private:
    std::size_t limit_;
    TextPool texts_;
    std::deque<V> values_;      // by the texts' ids; a deque: a new value moves none of the others
    std::optional<V> scratch_;  // past the limit: the last value made
};

}  // namespace gpuadvise
