#include "cml/gpu_turn.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace cml {
namespace {

int turn_connection = -1;  // open while this program has its turn

}  // namespace

std::string take_gpu_turn_socket()
{
    const char* named = std::getenv("CML_GPU_TURN");
    const std::string socket = named != nullptr ? named : "";
    unsetenv("CML_GPU_TURN");
    return socket;
}

void wait_for_gpu_turn(const std::string& socket)
{
    if (socket.empty()) return;
    const auto fail = [&](const char* step) {
        throw std::runtime_error(std::string("could not ask the grader for the GPU (") + step + " " + socket +
                                 "): " + std::strerror(errno));
    };
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (socket.size() >= sizeof(address.sun_path)) {
        errno = ENAMETOOLONG;
        fail("socket");
    }
    std::memcpy(address.sun_path, socket.c_str(), socket.size() + 1);
    // Left open: the grader holds the turn for this program until it is closed (end_gpu_turn, or the end).
    const int connection = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (connection < 0) fail("socket");
    if (::connect(connection, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) fail("connect to");
    char answer = 0;
    ssize_t got = 0;
    do {
        got = ::read(connection, &answer, 1);
    } while (got < 0 && errno == EINTR);
    if (got != 1) {
        if (got == 0) errno = ECONNRESET;
        fail("wait on");
    }
    turn_connection = connection;
}

void end_gpu_turn()
{
    if (turn_connection < 0) return;
    ::close(turn_connection);
    turn_connection = -1;
}

}  // namespace cml
