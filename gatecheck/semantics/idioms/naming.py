"""Naming conventions, for predicates whose body cannot be read (compiled extensions,
packages outside the scanned roots): `is_sm90_supported`, `is_blackwell`, `is_mi300`,
`get_sm_version`. The rules live in conventions.py (asked only after every idiom and
every readable body); answers that use them are marked assumed."""

from __future__ import annotations

from gatecheck.semantics.idioms._model import Example, Idiom, Noop, generations

_BLACKWELL = generations("sm100", "sm103", "sm110", "sm120", "sm121")

IDIOM = Idiom(
    name="naming conventions",
    examples=(
        Example(
            "sm-major",
            "is_sm90_supported()",
            generations("sm90"),
            "from sgl_kernel import is_sm90_supported",
            assumed=True,
        ),
        # An "a" suffix on a minor of 0 may pin the minor or not (FlashInfer's
        # is_sm100a_supported tests major 10): the family, never narrower than the body.
        Example(
            "sm-arch-specific",
            "is_sm100a_supported()",
            generations("sm100", "sm103"),
            "from sgl_kernel import is_sm100a_supported",
            assumed=True,
        ),
        Example(
            "sm-arch-specific-minor",
            "is_sm103a_supported()",
            generations("sm103"),
            "from sgl_kernel import is_sm103a_supported",
            assumed=True,
        ),
        Example(
            "sm-minor",
            "is_sm121()",
            generations("sm121"),
            "from ext import is_sm121",
            assumed=True,
        ),
        Example("family", "ext.is_blackwell()", _BLACKWELL, "import ext", assumed=True),
        Example(
            "product", "is_mi300()", generations("gfx942"), "from ext import is_mi300", assumed=True
        ),
        Example(
            "sm-version",
            "ext.get_sm_version() >= 100",
            _BLACKWELL,
            "import ext",
            assumed=True,
        ),
        Example(
            "compiled-extension-capability",
            "_ext.get_device_compute_capability() >= (12, 0)",
            generations("sm120", "sm121"),
            "import _ext",
            assumed=True,
        ),
        # Its encoding is read off the number it is compared with (AssumedCapability).
        Example(
            "compiled-extension-capability-as-sm-number",
            "100 <= _ext.get_device_compute_capability(0) < 120",
            generations("sm100", "sm103", "sm110"),
            "import _ext",
            assumed=True,
        ),
        Example(
            "compiled-extension-capability-as-major",
            "_ext.get_device_compute_capability() == 9",
            generations("sm90", "gfx90a", "gfx942", "gfx950"),
            "import _ext",
            assumed=True,
        ),
        Example(
            "compiled-extension-capability-as-float",
            "_ext.get_device_compute_capability() < 8.9",
            generations("sm70", "sm75", "sm80", "sm86", "sm87"),
            "import _ext",
            assumed=True,
        ),
        # A device record's field, read off a parameter nothing else describes (its
        # callers not all read): conventions.attribute_by_convention.
        Example(
            "device-record-capability",
            "(lambda device: device.identity.compute_capability in ((12, 0), (12, 1)))(d())",
            generations("sm120", "sm121"),
            "from ext import d",
            assumed=True,
        ),
        Example(
            "device-record-capability-as-sm-number",
            "(lambda dev: dev.device_capability >= 90)(d())",
            # ROCm reports the gfx arch as a capability too (gfx942: (9, 4)).
            generations("sm90", "sm100", "sm103", "sm110", "sm120", "sm121")
            | generations("gfx90a", "gfx942", "gfx950"),
            "from ext import d",
            assumed=True,
        ),
        # A property of an object made outside the scanned roots (tokenspeed's
        # `current_platform()` from tokenspeed_kernel): its name, as a method's is.
        Example(
            "predicate-property-of-an-outside-object",
            "current_platform().is_hopper",
            generations("sm90"),
            "from ext.platform import current_platform",
            assumed=True,
        ),
        Example(
            "predicate-property-through-names",
            "_is_new",
            _BLACKWELL,
            "from ext.platform import current_platform\n"
            "_platform = current_platform()\n"
            "_is_new = _platform.is_blackwell",
            assumed=True,
        ),
        Example(
            "or-newer",
            "ext.is_hopper_plus()",
            generations("sm90") | _BLACKWELL,
            "import ext",
            assumed=True,
        ),
        Example(
            "sm-or-later",
            "ext.is_sm100_or_later()",
            _BLACKWELL,
            "import ext",
            assumed=True,
        ),
        Example(
            "registry-family",
            "ext.platform().is_cdna4",
            generations("gfx950"),
            "import ext",
            assumed=True,
        ),
    ),
    noops=(
        Noop(
            "property-without-a-verb",
            "current_platform().hopper",
            "only is_/has_/supports_/use_/check_ names promise a truth value",
            "from ext.platform import current_platform",
        ),
        Noop(
            "property-of-a-project-function-result",
            "platform().is_hopper",
            "the object is made by a project function: what it holds is read from the "
            "project, not from the property's name",
            "import pickle\n\ndef platform():\n    return pickle.loads(b'')",
        ),
        Noop(
            "property-of-a-project-object",
            "Platform(flag()).is_hopper",
            "a project class's attribute is read from the class (here a constructor "
            "argument nothing describes), not from its name",
            "from ext import flag\n\nclass Platform:\n    def __init__(self, hopper):\n"
            "        self.is_hopper = hopper",
        ),
        Noop(
            "record-field-of-another-name",
            "(lambda dev: dev.target_capability == (12, 0))(d())",
            "only the device's own names (compute_capability, device_capability) say so",
            "from ext import d",
        ),
        Noop(
            "getattr-default-on-an-extension",
            'getattr(_ext, "fp8_gemm", None) is None',
            "an external module may or may not define the name: the default may be returned",
            "import _ext",
        ),
        Noop(
            "no-arch-word",
            "is_fast()",
            "the name says nothing about a device",
            "from ext import is_fast",
        ),
        Noop(
            "no-predicate-prefix",
            "sm90_kernel()",
            "only is_/has_/supports_/use_/check_ names promise a truth value",
            "from ext import sm90_kernel",
        ),
    ),
)
