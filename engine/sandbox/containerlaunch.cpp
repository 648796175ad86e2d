// SPDX-License-Identifier: MIT
#include "sandbox/containerlaunch.h"

#include "sandbox/files/pendingfile.h"
#include "sandbox/initadoption.h"
#include "sandbox/uniquefd.h"
#include "sandbox/writeall.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cstdlib>
#include <future>
#include <string_view>
#include <utility>

namespace Cordon::Containers::OneShot {

namespace {

using Plan = std::pair<Workspace, Isolation::SetupRequest>;

// The trust bundle beside the workspace's directories, out of the sandbox's reach except through its
// read-only mount; replaced whole, so that a start never mounts half a file.
Result<std::string> writeTrustBundle(const std::string &root, const std::string &pem)
{
    UniqueFd dir(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (dir.get() < 0)
        return failErrno("workspace.io", "open " + root, errno);
    auto pending = Files::PendingFile::create(dir.get(), root);
    if (!pending)
        return fail(pending.error());
    if (::fchmod(pending->fd(), 0644) != 0)
        return failErrno("workspace.io", "chmod the CA bundle", errno);
    if (const int written = writeFully(pending->fd(), pem); written != 0)
        return failErrno("workspace.io", "write the CA bundle in " + root, written);
    const std::string name = "ca-certificates.crt";
    auto committed = pending->commit(name, root + '/' + name, Files::ExistingName::Replace);
    if (!committed)
        return fail(committed.error());
    return root + '/' + name;
}

Result<Plan> makeWorkspaceAndPlan(const LaunchRequest &request)
{
    auto workspace = Workspace::create(request.id, request.ids.hostUid, request.ids.hostGid, request.layout);
    if (!workspace)
        return fail(workspace.error());
    const WorkspacePaths paths = workspace->paths(request.layout);
    if (request.prepareWorkspace) {
        if (auto prepared = request.prepareWorkspace(paths); !prepared)
            return fail(prepared.error());
    }
    Isolation::MountPlanInput input = request.plan;
    if (!request.trustBundlePem.empty()) {
        auto bundle = writeTrustBundle(workspace->root(), request.trustBundlePem);
        if (!bundle)
            return fail(bundle.error());
        input.trustBundle = std::move(*bundle);
    }
    input.workspace = {paths.work, paths.inputs, paths.outputs, paths.code};
    input.restoreSaved = request.layout == Workspace::Layout::Container;
    input.insideUid = request.ids.insideUid;
    input.insideGid = request.ids.insideGid;
    auto setup = Isolation::buildMountPlan(input);
    if (!setup)
        return fail(setup.error());
    return Plan(std::move(*workspace), std::move(*setup));
}

} // namespace

Result<> launchContainer(const LaunchRequest &request, LaunchedContainer &launched)
{
    std::future<Result<Plan>> planMade =
        std::async(std::launch::async, [&request] { return makeWorkspaceAndPlan(request); });
    auto init = Isolation::launchInit(Isolation::locateInit(), request.ids);
    auto plan = planMade.get(); // joined on every path
    if (plan)
        launched.workspace = std::move(plan->first);
    if (!init)
        return fail(init.error());
    launched.init = *init;
    if (!plan)
        return fail(plan.error());

    // cordon-init applies the mount plan while the cgroup is made and it is moved in: the two take about
    // as long, and run on two CPUs. It waits for CgroupJoined before anything the cgroup must see.
    Isolation::SetupRequest &setup = plan->second;
    const char *classic = std::getenv("CORDON_CLASSIC_MOUNTS");
    setup.classicMountCalls = classic != nullptr && std::string_view(classic) == "1";
    setup.seccompBpf = request.seccompBpf;
    setup.awaitCgroup = request.cgroup != nullptr;
    // cordon-init holds the adoption socket from here on; the engine finds it by its path when it adopts.
    UniqueFd adoption;
    if (request.survivesEngine) {
        auto listening = Isolation::bindAdoptionSocket(launched.workspace->root());
        if (!listening)
            return fail(listening.error());
        adoption = std::move(*listening);
        setup.survivesEngine = true;
    }
    const int adoptionFd = adoption.get();
    if (const int error =
            Isolation::sendMessage(launched.init.control, Isolation::encode(setup),
                                   adoption.isValid() ? &adoptionFd : nullptr, adoption.isValid() ? 1 : 0);
        error != 0)
        return failErrno("sandbox.setup_failed", "send setup request", error);
    if (request.cgroup) {
        if (request.replaceStaleGroup)
            (void)request.cgroup->destroy(request.id);
        CORDON_TRY(request.cgroup->create(request.id, request.limits));
        launched.cgroupCreated = true;
        CORDON_TRY(request.cgroup->addProcess(request.id, launched.init.pid));
        if (const int error =
                Isolation::sendMessage(launched.init.control, Isolation::encode(Isolation::CgroupJoined{}));
            error != 0)
            return failErrno("sandbox.setup_failed", "tell cordon-init it is in its cgroup", error);
    }
    return {};
}

} // namespace Cordon::Containers::OneShot
