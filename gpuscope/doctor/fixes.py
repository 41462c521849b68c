"""What the rules tell people to do: the public pages behind the advice, the shell lines of the
fixes (each complete and runnable as pasted), and where the doctor runs (container, VM, WSL),
which changes what advice can apply."""

from __future__ import annotations

from gpuscope.doctor.inputs import DoctorInput

# ----------------------------------------------------------------------------- public pages

ROCM_DOCKER_URL = "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/how-to/docker.html"
ROCM_PERMISSIONS_URL = (
    "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/prerequisites.html")
ROCM_AMDGPU_INSTALL_URL = (
    "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/amdgpu-install.html")
ROCM_GPU_ISOLATION_URL = "https://rocm.docs.amd.com/en/latest/conceptual/gpu-isolation.html"
ROCM_PCIE_ATOMICS_URL = (
    "https://rocm.docs.amd.com/en/latest/conceptual/More-about-how-ROCm-uses-PCIe-Atomics.html")
ROCM_WSL_URL = "https://rocm.docs.amd.com/projects/radeon/en/latest/docs/install/wsl/install-radeon.html"
ROCM_COMPATIBILITY_URL = "https://rocm.docs.amd.com/en/latest/compatibility/compatibility-matrix.html"
NVIDIA_CONTAINER_TOOLKIT_URL = (
    "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/install-guide.html")
NVIDIA_MIG_URL = "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/"
NVIDIA_CUDA_COMPATIBILITY_URL = "https://docs.nvidia.com/deploy/cuda-compatibility/"
NVIDIA_WSL_URL = "https://docs.nvidia.com/cuda/wsl-user-guide/index.html"
VFIO_URL = "https://docs.kernel.org/driver-api/vfio.html"

# ----------------------------------------------------------------------------- shell lines

# A complete example users adapt: the flags are what matters, the image is one that has ROCm.
DOCKER_RUN_AMD = ("docker run -it --device=/dev/kfd --device=/dev/dri --group-add video "
                  "--group-add render rocm/pytorch:latest")
# NVIDIA's own check that a container sees the GPUs, once the toolkit is installed.
NVIDIA_TOOLKIT_COMMANDS = (
    "sudo nvidia-ctk runtime configure --runtime=docker",
    "sudo systemctl restart docker",
    "docker run --rm --gpus all ubuntu nvidia-smi",
)
GROUPS_COMMAND = "sudo usermod -aG render,video $USER"


# ----------------------------------------------------------------------------- where it runs


def in_container(data: DoctorInput) -> bool:
    """The doctor's evidence comes from inside a container: the host says so, or a parser saw
    a container's trace (`platform.container`)."""
    return data.inventory.host.container or bool(data.signals_of("platform.container"))


def in_virtual_machine(data: DoctorInput) -> bool:
    host = data.inventory.host
    return data.os != "wsl" and (host.virtual_machine
                                 or bool(data.signals_of("platform.virtual_machine")))


def kfd_loaded_but_node_missing(data: DoctorInput) -> bool:
    """The kernel has KFD (ROCk is loaded) yet /dev/kfd does not exist: on a host the driver
    creates the node with the module, so the process runs where the node was not passed in (a
    container or sandbox started without --device=/dev/kfd)."""
    stack = data.inventory.stack
    loaded = bool(data.signals_of("kfd.loaded")) or stack.kfd_loaded is True
    missing = bool(data.signals_of("kfd.missing")) or any(
        n.path == "/dev/kfd" and not n.exists for n in stack.device_nodes)
    return loaded and missing and data.os not in ("wsl", "windows")
