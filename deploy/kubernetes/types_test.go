package kubernetes

// The fields of the manifests the checks rely on, and nothing else: a
// field the checks do not read is not modelled.

type meta struct {
	Name   string            `yaml:"name"`
	Labels map[string]string `yaml:"labels"`
}

type header struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   meta   `yaml:"metadata"`
}

type kustomization struct {
	Resources []string `yaml:"resources"`
}

type labelSelector struct {
	MatchLabels map[string]string `yaml:"matchLabels"`
}

type deployment struct {
	header `yaml:",inline"`
	Spec   struct {
		Replicas *int          `yaml:"replicas"`
		Selector labelSelector `yaml:"selector"`
		Template struct {
			Metadata meta    `yaml:"metadata"`
			Spec     podSpec `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type podSpec struct {
	ServiceAccountName            string           `yaml:"serviceAccountName"`
	TerminationGracePeriodSeconds *int             `yaml:"terminationGracePeriodSeconds"`
	SecurityContext               *securityContext `yaml:"securityContext"`
	Containers                    []container      `yaml:"containers"`
	Volumes                       []struct {
		Name string `yaml:"name"`
	} `yaml:"volumes"`
}

type securityContext struct {
	RunAsNonRoot             *bool  `yaml:"runAsNonRoot"`
	RunAsUser                *int64 `yaml:"runAsUser"`
	ReadOnlyRootFilesystem   *bool  `yaml:"readOnlyRootFilesystem"`
	AllowPrivilegeEscalation *bool  `yaml:"allowPrivilegeEscalation"`
}

type container struct {
	Name            string           `yaml:"name"`
	Image           string           `yaml:"image"`
	Command         []string         `yaml:"command"`
	Args            []string         `yaml:"args"`
	Env             []envVar         `yaml:"env"`
	Ports           []containerPort  `yaml:"ports"`
	ReadinessProbe  *probe           `yaml:"readinessProbe"`
	LivenessProbe   *probe           `yaml:"livenessProbe"`
	Resources       resources        `yaml:"resources"`
	SecurityContext *securityContext `yaml:"securityContext"`
	VolumeMounts    []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

type envVar struct {
	Name      string `yaml:"name"`
	Value     string `yaml:"value"`
	ValueFrom *struct {
		SecretKeyRef *struct {
			Name string `yaml:"name"`
			Key  string `yaml:"key"`
		} `yaml:"secretKeyRef"`
	} `yaml:"valueFrom"`
}

type containerPort struct {
	Name          string `yaml:"name"`
	ContainerPort int    `yaml:"containerPort"`
}

// intOrString is a port given by number or by name.
type intOrString string

type probe struct {
	HTTPGet *struct {
		Path string      `yaml:"path"`
		Port intOrString `yaml:"port"`
	} `yaml:"httpGet"`
}

type resources struct {
	Requests map[string]string `yaml:"requests"`
	Limits   map[string]string `yaml:"limits"`
}

type service struct {
	header `yaml:",inline"`
	Spec   struct {
		Selector map[string]string `yaml:"selector"`
		Ports    []struct {
			Name       string      `yaml:"name"`
			Port       int         `yaml:"port"`
			TargetPort intOrString `yaml:"targetPort"`
		} `yaml:"ports"`
	} `yaml:"spec"`
}

type podDisruptionBudget struct {
	header `yaml:",inline"`
	Spec   struct {
		MinAvailable   *intOrString  `yaml:"minAvailable"`
		MaxUnavailable *intOrString  `yaml:"maxUnavailable"`
		Selector       labelSelector `yaml:"selector"`
	} `yaml:"spec"`
}

type secret struct {
	header     `yaml:",inline"`
	StringData map[string]string `yaml:"stringData"`
	Data       map[string]string `yaml:"data"`
}
