#pragma once
// Boost.Process v2 as shipped in Boost 1.81, header-only, on std::filesystem (no compiled
// Boost.Filesystem needed). With BOOST_PROCESS_USE_STD_FS, 1.81's headers use boost::optional
// and an unqualified `decay` without declaring them; supply both before including it (and
// `remove_pointer`, which environment.hpp needs).

#define BOOST_PROCESS_USE_STD_FS 1
#include <boost/optional.hpp>
#include <type_traits>
namespace boost::process::v2 {
using std::decay;
using std::remove_pointer;
}
#include <boost/asio/io_context.hpp>
#include <boost/process/v2/environment.hpp>
#include <boost/process/v2/process.hpp>
#include <boost/process/v2/stdio.hpp>
// 1.81's header-only mode leaves process_environment::on_setup undefined: its .ipp is included
// only by src.hpp. It is not inline, so worker_process.cpp alone includes it, and every other
// file that starts processes (slurm/slurm_client.cpp) links against that definition.
