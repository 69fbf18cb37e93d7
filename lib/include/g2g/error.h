// SPDX-License-Identifier: LGPL-2.1-or-later
// Errors of the g2g library: a code and one line that says who refused what and how to fix it.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace g2g {

// Values match the C API's G2gError codes (g2g/g2g.h).
enum class ErrorCode : int {
    // A frame arrived in a domain the element cannot read (names the fix).
    UnsupportedDomain = 1,
    // The buffer holds memory of a type g2g does not know (names the memory type).
    UnknownMemory = 2,
    // The memory is of a known kind but could not be mapped for reading or writing.
    MapFailed = 3,
    // A caller passed something the API cannot work with (empty buffer, bad geometry, ...).
    InvalidArgument = 4,
};

class Error {
public:
    Error(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

    ErrorCode code() const { return code_; }
    const std::string &message() const { return message_; }

private:
    ErrorCode code_;
    std::string message_;
};

// A value or the Error that prevented it (the seed's Result<T, G2gError>). No exceptions
// cross the library boundary: callers test ok() before value().
template <typename T> class Result {
public:
    Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}
    Result(Error error) : state_(std::in_place_index<1>, std::move(error)) {}

    bool ok() const { return state_.index() == 0; }
    explicit operator bool() const { return ok(); }

    T &value() & { return std::get<0>(state_); }
    const T &value() const & { return std::get<0>(state_); }
    T &&value() && { return std::get<0>(std::move(state_)); }
    T *operator->() { return &value(); }
    const T *operator->() const { return &value(); }
    T &operator*() & { return value(); }
    const T &operator*() const & { return value(); }

    const Error &error() const { return std::get<1>(state_); }

private:
    std::variant<T, Error> state_;
};

// Success, or the Error that prevented it.
template <> class Result<void> {
public:
    Result() = default;
    Result(Error error) : error_(std::move(error)), failed_(true) {}

    bool ok() const { return !failed_; }
    explicit operator bool() const { return ok(); }
    const Error &error() const { return error_; }

private:
    Error error_{ErrorCode::InvalidArgument, {}};
    bool failed_ = false;
};

} // namespace g2g
